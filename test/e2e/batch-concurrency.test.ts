import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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

function start(args: string[]): Proc {
  const child = spawnCli(args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
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
