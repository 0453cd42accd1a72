import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, spawnCli } from '../helpers/cli.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { countingProxy, exactlyOnce, ndjsonInput, recipient, reportIndexes, sandboxEnv, type CountingProxy } from '../helpers/batch.js';

let sandbox: TestSandbox;
let proxy: CountingProxy;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  // Latency stretches a run so kills land mid-way; lost answers make the last requests' fate unknown.
  sandbox = await withSandbox({ config: { faults: { latencyMs: 10, lostRate: 0.05, seed: 3 } } });
  // The runs go through a proxy that counts their batch requests: a kill lands after a chosen number.
  proxy = await countingProxy(sandbox);
  dir = mkdtempSync(join(tmpdir(), 'mailroom-batch-resume-'));
  env = cleanEnv(join(dir, 'cfg'), { ...sandboxEnv(sandbox, join(dir, 'state')), MAILROOM_BASE_URL: proxy.baseUrl });
});
afterAll(async () => {
  await proxy.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => sandbox.reset());

/** Starts a batch and SIGKILLs it once `after` of its batch requests have reached the API (or when it ends by itself). */
function runAndKill(args: string[], after: number): Promise<{ killed: boolean; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawnCli(args, { env, stdio: ['ignore', 'ignore', 'ignore'] });
    let killed = false;
    let closed = false;
    void proxy.batches(after).then(() => {
      if (!closed) killed = child.kill('SIGKILL');
    });
    child.on('close', (code) => {
      closed = true;
      resolve({ killed, code });
    });
  });
}

describe('mailroom batch: kill -9 and resume', () => {
  it('killed at three points, then resumed: every email arrives exactly once, the report is complete', async () => {
    const N = 5000;
    const input = join(dir, 'in.ndjson');
    ndjsonInput(input, N);
    const journal = join(dir, 'run.journal');
    const report = join(dir, 'report.ndjson');
    const args = ['batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--resume', journal, '--report', report];
    let kills = 0;
    // Three points further into the run each time: each run resumes, then sends that many requests more.
    for (const after of [4, 11, 7]) {
      const { killed } = await runAndKill(args, after);
      if (killed) kills += 1;
    }
    expect(kills).toBe(3);
    expect((await sandbox.emails()).length).toBeLessThan(N);
    const final = await runCli([...args, '--json'], { env, configDir: join(dir, 'cfg') });
    expect(final.code).toBe(0);
    const summary = JSON.parse(final.stdout);
    expect(summary).toMatchObject({ total: N, failed: 0, resumed: true });
    expect(summary.sent + summary.skipped).toBe(N);
    expect(exactlyOnce(await sandbox.emails(), N)).toEqual({ arrived: N, distinctKeys: N, distinctRecipients: N });
    expect(reportIndexes(report)).toEqual({ lines: N, distinct: N, min: 0, max: N - 1, withId: N });
  });

  it('a JSON array killed mid-way resumes the same way; a different input is refused with exit 2', async () => {
    const N = 3000;
    const input = join(dir, 'in.json');
    writeFileSync(input, JSON.stringify(Array.from({ length: N }, (_, i) => ({ to: recipient(i), html: `<p>${i}</p>` }))));
    const journal = join(dir, 'json.journal');
    const args = ['batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--resume', journal];
    const { killed } = await runAndKill(args, 9);
    expect(killed).toBe(true);
    const size = statSync(journal).size;

    writeFileSync(join(dir, 'other.json'), JSON.stringify([{ to: 'x@example.com', html: 'x' }]));
    const refused = await runCli(['batch', join(dir, 'other.json'), '--from', 'ops@example.com', '--subject', 'Hi', '--resume', journal], { env, configDir: join(dir, 'cfg') });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/not the file this journal was made from/);
    expect(statSync(journal).size).toBe(size);

    const final = await runCli([...args, '--json'], { env, configDir: join(dir, 'cfg') });
    expect(final.code).toBe(0);
    expect(exactlyOnce(await sandbox.emails(), N)).toEqual({ arrived: N, distinctKeys: N, distinctRecipients: N });
  });

  it('Ctrl-C: in-flight requests settle, exit 130, the summary prints the resume command for the default journal, and it finishes the run', async () => {
    // A state directory of its own: the first test's 5000 entries begin with these 4000, and a new
    // run of entries an earlier run sent would be refused.
    const N = 4000;
    const input = join(dir, 'sigint.ndjson');
    ndjsonInput(input, N);
    const args = ['batch', input, '--from', 'ops@example.com', '--subject', 'Hi'];
    const ownEnv = { ...env, MAILROOM_STATE_DIR: join(dir, 'sigint-state') };
    const journals = join(dir, 'sigint-state', 'batches');
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawnCli(args, { env: ownEnv, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      let closed = false;
      void proxy.batches(5).then(() => {
        if (!closed) child.kill('SIGINT');
      });
      child.on('close', (code) => {
        closed = true;
        resolve({ code, stderr });
      });
    });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('interrupted');
    const resume = /to finish, run again with the same flags: mailroom batch (\S+) --resume (\S+)/.exec(result.stderr);
    expect(resume?.[1]).toBe(input);
    expect(resume?.[2]).toMatch(new RegExp(`^${journals}/[0-9a-f]{12}\\.journal$`));
    const sentBefore = (await sandbox.emails()).length;
    expect(sentBefore).toBeGreaterThan(0);
    expect(sentBefore).toBeLessThan(N);
    const final = await runCli([...args, '--resume', resume![2]!, '--json'], { env: ownEnv, configDir: join(dir, 'cfg') });
    expect(final.code).toBe(0);
    expect(JSON.parse(final.stdout)).toMatchObject({ total: N, skipped: sentBefore, sent: N - sentBefore, unsent: 0 });
    expect(exactlyOnce(await sandbox.emails(), N)).toEqual({ arrived: N, distinctKeys: N, distinctRecipients: N });
  });
});
