import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Mailroom } from '../../src/library/index.js';
import { keyFingerprint } from '../../src/batch/fingerprint.js';
import { claimPath } from '../../src/batch/first-request-claim.js';
import { runInProcess } from '../helpers/context.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { ndjsonInput, rerunWorld, type CountingProxy } from '../helpers/batch.js';
import { entryText } from '../../src/batch/chunks.js';
import { createHash } from 'node:crypto';

// Two runs of the same entries started at the same moment: neither finds the other's journal before
// it starts reading, so each claims its first request in the state directory before sending it, and
// exactly one of them sends (docs/batch.md, "Running a file again").

let sandbox: TestSandbox;
let proxy: CountingProxy;
let dir: string;
let env: Record<string, string>;
let state: string;

rerunWorld('mailroom-batch-race-', (w) => {
  ({ sandbox, proxy, dir, state, env } = w);
});

const args = (input: string, ...more: string[]) => ['batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--concurrency', '2', ...(more.includes('--size') ? [] : ['--size', '10']), ...more];
const stateJournals = () => readdirSync(join(state, 'batches')).filter((n) => n.endsWith('.journal'));
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const ndjsonText = (count: number) => Array.from({ length: count }, (_, i) => `${JSON.stringify({ to: `user${i}@example.com`, html: `<p>Hello ${i}</p>` })}\n`).join('');

/** Two results: the one that sent (exit 0) and the one refused (exit 2). */
function winnerAndLoser<T extends { code: number }>(a: T, b: T): { winner: T; loser: T } {
  expect([a.code, b.code].sort()).toEqual([0, 2]);
  return a.code === 0 ? { winner: a, loser: b } : { winner: b, loser: a };
}

describe('two new runs of the same entries started at the same moment', () => {
  it('a file: one sends every entry once, the other exits 2 naming the run (pid and journal) that is sending them; it leaves no journal', async () => {
    const N = 300;
    const input = join(dir, 'same.ndjson');
    ndjsonInput(input, N);
    const { winner, loser } = winnerAndLoser(...(await Promise.all([runInProcess([...args(input), '--json'], { env }), runInProcess([...args(input), '--json'], { env })])));
    const journal = JSON.parse(winner.stdout).journal as string;
    const lines = loser.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      new RegExp(`^mailroom: ${esc(input)}: run \\w{12} \\(pid ${process.pid}, the journal ${esc(journal)}\\) is sending the same entries to ${esc(proxy.baseUrl)} with this API key right now; a second run would send them twice, so nothing was sent$`),
    );
    expect(loser.stderr).toContain('--new-run sends them again on purpose, once that run has ended');
    const emails = await sandbox.emails();
    expect(emails).toHaveLength(N);
    expect(new Set(emails.map((e) => e.to)).size).toBe(N);
    expect(stateJournals()).toEqual([journal.split('/').pop()]);
  });

  it('stdin: the same', async () => {
    const N = 200;
    const text = ndjsonText(N);
    const { winner, loser } = winnerAndLoser(...(await Promise.all([runInProcess([...args('-'), '--json'], { env, input: text }), runInProcess([...args('-'), '--json'], { env, input: text })])));
    const journal = JSON.parse(winner.stdout).journal as string;
    expect(loser.stderr.split('\n')[0]).toMatch(new RegExp(`^mailroom: stdin: run \\w{12} \\(pid ${process.pid}, the journal ${esc(journal)}\\) is sending the same entries to `));
    expect(loser.stderr).toContain(`pipe the same input into: mailroom batch - --resume ${journal} --from ops@example.com --subject Hi`);
    expect(await sandbox.emails()).toHaveLength(N);
    expect(stateJournals()).toHaveLength(1);
  });

  it('--new-run does not send again what a run is sending right now: one of two --new-run runs at once is refused all the same', async () => {
    const N = 200;
    const input = join(dir, 'again.ndjson');
    ndjsonInput(input, N);
    const first = await runInProcess(args(input), { env });
    expect(first.code).toBe(0);
    const { loser } = winnerAndLoser(...(await Promise.all([runInProcess(args(input, '--new-run'), { env }), runInProcess(args(input, '--new-run'), { env })])));
    expect(loser.stderr).toMatch(/^mailroom: \S+: run \w{12} \(pid \d+, the journal \S+\) is sending the same entries to .* right now; a second run would send them twice, so nothing was sent$/m);
    expect(await sandbox.emails()).toHaveLength(2 * N);
  });

  it('emails.batch: two calls with the same entries at once in one program: one sends them, the other throws; nothing twice', async () => {
    const client = new Mailroom({ apiKey: env.MAILROOM_API_KEY, baseUrl: proxy.baseUrl, env: { MAILROOM_STATE_DIR: state } });
    try {
      const entries = () => Array.from({ length: 120 }, (_, i) => ({ from: 'ops@example.com', to: `lib${i}@example.com`, subject: 'Hi', html: `<p>${i}</p>` }));
      const results = await Promise.allSettled([client.emails.batch(entries(), { size: 10, concurrency: 2 }), client.emails.batch(entries(), { size: 10, concurrency: 2 })]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      const error = (results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason as Error;
      expect(error.message).toMatch(new RegExp(`^the entries: run \\w{12} \\(pid ${process.pid}, the journal .+\\) is sending the same entries to ${esc(proxy.baseUrl)} with this API key right now`));
      expect(await sandbox.emails()).toHaveLength(120);
    } finally {
      await client.close();
    }
  });

  describe('a run that reads its first entries late (a slow producer), refused when it reaches its first request', () => {
    const entries = (n: number) => Array.from({ length: n }, (_, i) => ({ from: 'ops@example.com', to: `slow${i}@example.com`, subject: 'Hi', html: `<p>${i}</p>` }));
    /** The entries, the first one at once and the rest once `go` is called. */
    function held(n: number): { source: AsyncIterable<unknown>; go: () => void } {
      let go!: () => void;
      const gate = new Promise<void>((resolve) => (go = resolve));
      const all = entries(n);
      return {
        source: (async function* () {
          yield all[0];
          await gate;
          yield* all.slice(1);
        })(),
        go,
      };
    }

    it('an earlier run of the same entries ran to its end meanwhile: refused, naming it and the way to finish it; its --report and --failed files are as they were', async () => {
      const client = new Mailroom({ apiKey: env.MAILROOM_API_KEY, baseUrl: proxy.baseUrl, env: { MAILROOM_STATE_DIR: state } });
      try {
        const report = join(dir, 'late.report.ndjson');
        const failed = join(dir, 'late.failed.ndjson');
        writeFileSync(report, 'an earlier report\n');
        const late = held(60);
        const refused = client.emails.batch(late.source, { size: 10, report, failed }).catch((e: unknown) => e as Error);
        const first = await client.emails.batch(entries(60), { size: 10 });
        expect(first).toMatchObject({ sent: 60 });
        late.go();
        const error = await refused;
        expect(error).toBeInstanceOf(Error);
        expect((error as Error).message).toMatch(
          new RegExp(`^the entries: run ${first.runId} \\(the journal ${esc(first.journal!)}\\) sent the same entries to ${esc(proxy.baseUrl)} with this API key while this run was starting; a new run would send them again, so nothing was sent$`),
        );
        expect(await sandbox.emails()).toHaveLength(60);
        expect(readFileSync(report, 'utf8')).toBe('an earlier report\n');
        expect(existsSync(failed)).toBe(false);
        expect(stateJournals()).toEqual([first.journal!.split('/').pop()]);
      } finally {
        await client.close();
      }
    });

    it('the earlier run is still sending: refused, naming its pid and journal', async () => {
      const client = new Mailroom({ apiKey: env.MAILROOM_API_KEY, baseUrl: proxy.baseUrl, env: { MAILROOM_STATE_DIR: state } });
      try {
        const sending = held(60);
        const first = client.emails.batch(sending.source, { size: 1 });
        // Its first request went out: it claimed it and wrote its checkpoint; the rest waits.
        await proxy.batches(1);
        const error = (await client.emails.batch(entries(60), { size: 1 }).catch((e: unknown) => e)) as Error;
        expect(error.message).toMatch(new RegExp(`^the entries: run \\w{12} \\(pid ${process.pid}, the journal .+\\) is sending the same entries to ${esc(proxy.baseUrl)} with this API key right now`));
        sending.go();
        expect(await first).toMatchObject({ sent: 60 });
        expect(await sandbox.emails()).toHaveLength(60);
      } finally {
        await client.close();
      }
    });

    it('one input the first entries of the other, inside its first request: whichever claims second is refused, nothing twice', async () => {
      const client = new Mailroom({ apiKey: env.MAILROOM_API_KEY, baseUrl: proxy.baseUrl, env: { MAILROOM_STATE_DIR: state } });
      try {
        for (const [late, early] of [
          [15, 60],
          [60, 15],
        ] as const) {
          await sandbox.reset();
          rmSync(state, { recursive: true, force: true });
          const waiting = held(late);
          const refused = client.emails.batch(waiting.source, { size: 20 }).catch((e: unknown) => e as Error);
          const first = await client.emails.batch(entries(early), { size: 20 });
          expect(first).toMatchObject({ sent: early });
          waiting.go();
          const error = await refused;
          expect({ late, early, error: error instanceof Error ? error.message : error }).toMatchObject({
            late,
            early,
            error: expect.stringMatching(new RegExp(`^the entries: run ${first.runId} \\(the journal ${esc(first.journal!)}\\) sent the same entries to ${esc(proxy.baseUrl)} with this API key while this run was starting; `)),
          });
          expect(await sandbox.emails()).toHaveLength(early);
        }
      } finally {
        await client.close();
      }
    });
  });

  it('a claim left by a killed run (its pid gone) does not block a new run', async () => {
    const input = join(dir, 'stale.ndjson');
    ndjsonInput(input, 30);
    // A pid that no longer runs: a process that has ended.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const batches = join(state, 'batches');
    mkdirSync(batches, { recursive: true });
    const firstEntry = createHash('sha256').update(`${entryText({ value: { to: 'user0@example.com', html: '<p>Hello 0</p>' }, line: 1 })}\n`).digest('hex').slice(0, 32);
    const claim = `${claimPath(batches, { baseUrl: proxy.baseUrl, key: keyFingerprint(env.MAILROOM_API_KEY!) }, firstEntry)}.lock`;
    const fd = openSync(claim, 'wx');
    writeSync(fd, JSON.stringify({ pid: Number(dead), host: hostname(), startedAt: new Date().toISOString() }));
    closeSync(fd);
    const started = Date.now();
    const r = await runInProcess([...args(input), '--json'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ total: 30, sent: 30 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(readdirSync(batches).filter((n) => n.endsWith('.lock'))).toEqual([]);
  });
});
