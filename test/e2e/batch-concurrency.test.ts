import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, spawnCli } from '../helpers/cli.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { countingProxy, exactlyOnce, ndjsonInput, sandboxEnv, type CountingProxy } from '../helpers/batch.js';

let sandbox: TestSandbox;
let proxy: CountingProxy;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  // Latency keeps each run going long enough for the other to start while it holds the journal.
  sandbox = await withSandbox({ config: { faults: { latencyMs: 40 } } });
  // A proxy counts the batch requests reaching the API: the kill below lands after a chosen number.
  proxy = await countingProxy(sandbox);
  dir = mkdtempSync(join(tmpdir(), 'mailroom-batch-conc-'));
  env = cleanEnv(join(dir, 'cfg'), { ...sandboxEnv(sandbox, join(dir, 'state')), MAILROOM_BASE_URL: proxy.baseUrl });
});
afterAll(async () => {
  await proxy.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});
// Each test a first run: no journal of the one before (its entries begin the same).
beforeEach(async () => {
  await sandbox.reset();
  rmSync(join(dir, 'state'), { recursive: true, force: true });
});

interface Proc {
  pid: number;
  done: Promise<{ code: number | null; stderr: string }>;
  kill(signal: NodeJS.Signals): void;
}

function start(args: string[], input?: string): Proc {
  const child = spawnCli(args, { env, stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'] });
  if (input !== undefined) child.stdin!.end(input);
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stderr })));
  return { pid: child.pid!, done, kill: (s) => child.kill(s) };
}

describe('mailroom batch: one run per journal', () => {
  it('two runs started together on a new --resume path: one sends everything, the other exits 2 naming it', async () => {
    const N = 2000;
    const input = join(dir, 'together.ndjson');
    ndjsonInput(input, N);
    const journal = join(dir, 'together.journal');
    const args = ['batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--resume', journal];
    const a = start(args);
    const b = start(args);
    const [ra, rb] = await Promise.all([a.done, b.done]);
    expect([ra.code, rb.code].sort()).toEqual([0, 2]);
    const [loser, winner] = ra.code === 2 ? [ra, b] : [rb, a];
    expect(loser.stderr).toMatch(new RegExp(`^mailroom: --resume ${journal} is in use by another mailroom batch \\(pid ${winner.pid}\\b`, 'm'));
    expect(exactlyOnce(await sandbox.emails(), N)).toEqual({ arrived: N, distinctKeys: N, distinctRecipients: N });
    expect(existsSync(`${journal}.lock`)).toBe(false);
  });

  it('a run killed with -9 leaves a stale lock that a resume takes over; two resumes at once: one finishes the run, the other exits 2', async () => {
    const N = 3000;
    const input = join(dir, 'stale.ndjson');
    ndjsonInput(input, N);
    const journal = join(dir, 'stale.journal');
    const args = ['batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--resume', journal];
    const sent = proxy.batches(3);
    const first = start(args);
    await sent;
    first.kill('SIGKILL');
    await first.done;
    expect(existsSync(`${journal}.lock`)).toBe(true);

    const a = start([...args, '--json']);
    const b = start([...args, '--json']);
    const [ra, rb] = await Promise.all([a.done, b.done]);
    expect([ra.code, rb.code].sort()).toEqual([0, 2]);
    const [loser, winner] = ra.code === 2 ? [ra, b] : [rb, a];
    expect(loser.stderr).toMatch(new RegExp(`is in use by another mailroom batch \\(pid ${winner.pid}\\b`));
    expect(exactlyOnce(await sandbox.emails(), N)).toEqual({ arrived: N, distinctKeys: N, distinctRecipients: N });
  });
});

describe('mailroom batch: two new runs of the same input at the same moment', () => {
  const journals = () => readdirSync(join(dir, 'state', 'batches')).filter((n) => n.endsWith('.journal'));
  const args = (input: string) => ['batch', input, '--from', 'ops@example.com', '--subject', 'Hi'];

  it('a file: one sends everything, the other exits 2 naming its pid and journal; nothing twice', async () => {
    const N = 1000;
    const input = join(dir, 'twice.ndjson');
    ndjsonInput(input, N);
    const a = start(args(input));
    const b = start(args(input));
    const [ra, rb] = await Promise.all([a.done, b.done]);
    expect([ra.code, rb.code].sort()).toEqual([0, 2]);
    const [loser, winner] = ra.code === 2 ? [ra, b] : [rb, a];
    expect(journals()).toHaveLength(1);
    const journal = join(dir, 'state', 'batches', journals()[0]!);
    expect(loser.stderr).toMatch(new RegExp(`^mailroom: ${input}: run \\w{12} \\(pid ${winner.pid}, the journal ${journal}\\) is sending the same entries to ${proxy.baseUrl} with this API key right now; a second run would send them twice, so nothing was sent$`, 'm'));
    expect(exactlyOnce(await sandbox.emails(), N)).toEqual({ arrived: N, distinctKeys: N, distinctRecipients: N });
  });

  it('stdin, both: the same', async () => {
    const N = 1000;
    const input = join(dir, 'twice-stdin.ndjson');
    ndjsonInput(input, N);
    const text = readFileSync(input, 'utf8');
    const a = start(args('-'), text);
    const b = start(args('-'), text);
    const [ra, rb] = await Promise.all([a.done, b.done]);
    expect([ra.code, rb.code].sort()).toEqual([0, 2]);
    const [loser, winner] = ra.code === 2 ? [ra, b] : [rb, a];
    expect(journals()).toHaveLength(1);
    expect(loser.stderr).toMatch(new RegExp(`^mailroom: stdin: run \\w{12} \\(pid ${winner.pid}, the journal \\S+\\) is sending the same entries to `, 'm'));
    expect(exactlyOnce(await sandbox.emails(), N)).toEqual({ arrived: N, distinctKeys: N, distinctRecipients: N });
  });

  it('a run killed with -9 while sending, then a new run: refused as a re-run of the killed run, with the command that finishes it; that command sends the rest once', async () => {
    const N = 3000;
    const input = join(dir, 'killed.ndjson');
    ndjsonInput(input, N);
    const sent = proxy.batches(3);
    const first = start(args(input));
    await sent;
    first.kill('SIGKILL');
    await first.done;
    // Its requests still on their way reach the sandbox after the kill: count once they have.
    await proxy.settled();
    const before = (await sandbox.emails()).length;
    const journal = join(dir, 'state', 'batches', journals()[0]!);

    const again = start(args(input));
    const r = await again.done;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^mailroom: .* a new run would send them again, so nothing was sent$/m);
    expect(r.stderr).not.toContain('right now');
    const resume = `mailroom batch ${input} --resume ${journal} --from ops@example.com --subject Hi`;
    expect(r.stderr).toContain(resume);
    expect((await sandbox.emails()).length).toBe(before);

    const finish = start(resume.split(' ').slice(1));
    expect((await finish.done).code).toBe(0);
    expect(exactlyOnce(await sandbox.emails(), N)).toEqual({ arrived: N, distinctKeys: N, distinctRecipients: N });
  });
});
