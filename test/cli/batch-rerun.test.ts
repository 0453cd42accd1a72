import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess, startInProcess } from '../helpers/context.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { ndjsonInput, rerunWorld, type CountingProxy } from '../helpers/batch.js';

let sandbox: TestSandbox;
let proxy: CountingProxy;
let dir: string;
let env: Record<string, string>;
let state: string;

rerunWorld('mailroom-batch-rerun-', (w) => {
  ({ sandbox, proxy, dir, state, env } = w);
});

const args = (input: string, ...more: string[]) => ['batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--concurrency', '1', '--size', '10', ...more];

/** Starts a batch in-process and presses Ctrl-C once `after` of its requests reached the API. */
async function interrupted(input: string, after: number) {
  const cmd = startInProcess(args(input), { env });
  await proxy.batches(after);
  const r = await cmd.stop();
  expect(r.code).toBe(130);
  return r;
}

const journalOf = (stderr: string) => /journal: (\S+\.journal)/.exec(stderr)?.[1];

describe('a new run of an input an earlier run sent', () => {
  it('Ctrl-C after some emails, then the same command again: refused (exit 2, nothing sent), naming the journal, what it sent, --resume and --new-run', async () => {
    const N = 500;
    const input = join(dir, 'big.ndjson');
    ndjsonInput(input, N);
    const first = await interrupted(input, 3);
    const journal = journalOf(first.stderr)!;
    expect(journal).toBeDefined();
    const sentBefore = (await sandbox.emails()).length;
    expect(sentBefore).toBeGreaterThan(0);
    expect(sentBefore).toBeLessThan(N);

    const again = await runInProcess(args(input), { env });
    expect(again.code).toBe(2);
    expect(again.stdout).toBe('');
    const lines = again.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      new RegExp(`^mailroom: ${input.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} was already sent to ${proxy.baseUrl} with this API key: the journal ${journal} records ${sentBefore} emails sent \\(run \\w+ of .+, stopped before the end, last written .+\\); a new run would send them again, so nothing was sent$`),
    );
    expect(again.stderr).toContain(`to finish that run, sending only what it did not: mailroom batch ${input} --resume ${journal} --from ops@example.com --subject Hi`);
    expect(again.stderr).toContain('to send every entry again on purpose: add --new-run');
    expect((await sandbox.emails()).length).toBe(sentBefore);

    // The way on that the refusal names finishes the run: every recipient exactly once.
    const resumed = await runInProcess([...args(input), '--resume', journal, '--json'], { env });
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ total: N, failed: 0, skipped: sentBefore, sent: N - sentBefore });
    const emails = await sandbox.emails();
    expect(emails).toHaveLength(N);
    expect(new Set(emails.map((e) => e.to)).size).toBe(N);

    // Finished or not, a third plain run is refused too; --new-run sends it all again, on purpose, and says so.
    const third = await runInProcess(args(input), { env });
    expect(third.code).toBe(2);
    expect(third.stderr).toContain(`records ${N} emails sent`);
    expect(third.stderr).toMatch(/, finished, last written /);
    expect(third.stderr).toContain(`that run finished: resuming it sends nothing more (mailroom batch ${input} --resume ${journal} `);
    const onPurpose = await runInProcess([...args(input), '--new-run', '--json'], { env });
    expect(onPurpose.code).toBe(0);
    expect(JSON.parse(onPurpose.stdout)).toMatchObject({ total: N, sent: N });
    expect(onPurpose.stderr).toContain(`mailroom: note: --new-run: sending again what ${journal} records as sent (${N})`);
    expect(await sandbox.emails()).toHaveLength(2 * N);
  });

  it('finds a journal kept elsewhere (--resume <new file>) too; --new-run with an existing --resume journal is refused', async () => {
    const input = join(dir, 'small.ndjson');
    ndjsonInput(input, 30);
    const journal = join(dir, 'kept-elsewhere.journal');
    rmSync(journal, { force: true });
    const first = await runInProcess([...args(input), '--resume', journal], { env });
    expect(first.code).toBe(0);
    expect(readdirSync(join(state, 'batches'))).toHaveLength(1);

    const again = await runInProcess(args(input), { env });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`the journal ${journal} records 30 emails sent`);
    const both = await runInProcess([...args(input), '--resume', journal, '--new-run'], { env });
    expect(both.code).toBe(2);
    expect(both.stderr).toBe(`mailroom: --new-run starts a new run, and --resume ${journal} continues the run of that journal: give one of them\n`);
    expect(await sandbox.emails()).toHaveLength(30);
  });

  it('other bytes are another input: a changed file is sent as a new run; a --dry-run and a run that sent nothing leave nothing to refuse', async () => {
    const input = join(dir, 'change.ndjson');
    ndjsonInput(input, 5);
    const dry = await runInProcess([...args(input), '--dry-run'], { env });
    expect(dry.code).toBe(0);
    expect((await runInProcess(args(input), { env })).code).toBe(0);
    writeFileSync(input, `${JSON.stringify({ to: 'new@example.com', html: '<p>new</p>' })}\n`, { flag: 'a' });
    const changed = await runInProcess([...args(input), '--json'], { env });
    expect(changed.code).toBe(0);
    expect(JSON.parse(changed.stdout)).toMatchObject({ total: 6, sent: 6 });

    // Every entry invalid: no request went out, so running it again (fixed or not) is not a resend.
    const invalid = join(dir, 'invalid.ndjson');
    writeFileSync(invalid, '{"to":"not-an-address"}\n');
    expect((await runInProcess(args(invalid), { env })).code).toBe(2);
    expect((await runInProcess(args(invalid), { env })).code).toBe(2);
    expect((await runInProcess(args(invalid), { env })).stderr).not.toContain('was already sent');
    expect(existsSync(state)).toBe(true);
  });

  it('a resume with a changed input never suggests a new run of it', async () => {
    const input = join(dir, 'resume-changed.ndjson');
    ndjsonInput(input, 20);
    await interrupted(input, 1);
    const journal = readdirSync(join(state, 'batches'))[0]!;
    writeFileSync(input, `${JSON.stringify({ to: 'extra@example.com', html: '<p>x</p>' })}\n`, { flag: 'a' });
    const r = await runInProcess([...args(input), '--resume', join(state, 'batches', journal)], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the input is not the file this journal was made from');
    expect(r.stderr).not.toMatch(/new run|without --resume/);
  });
});
