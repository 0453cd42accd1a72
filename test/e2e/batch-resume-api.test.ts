import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, spawnCli } from '../helpers/cli.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { exactlyOnce, ndjsonInput } from '../helpers/batch.js';

const KEY = 'sk_test_shared_by_both_sandboxes_0123456789';
let hostA: TestSandbox;
let hostB: TestSandbox;
let dir: string;
/** What the user's shell holds: the other host in MAILROOM_BASE_URL, as in the report. */
let env: Record<string, string>;
const N = 4000;
let input: string;
let journal: string;
let report: string;
let printed: string;

const records = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').length - 2 : -1);

beforeAll(async () => {
  hostA = await withSandbox({ apiKey: KEY, config: { faults: { latencyMs: 10 } } });
  hostB = await withSandbox({ apiKey: KEY });
  dir = mkdtempSync(join(tmpdir(), 'mailroom-batch-api-'));
  env = cleanEnv(join(dir, 'cfg'), { MAILROOM_BASE_URL: hostB.baseUrl, MAILROOM_API_KEY: KEY, MAILROOM_STATE_DIR: join(dir, 'state') });
  // --profile names a stored profile (a named profile that does not exist is refused) holding the key
  // (--profile takes its key, not the environment's: docs/configuration.md); --base-url wins over it.
  mkdirSync(join(dir, 'cfg'), { mode: 0o700 });
  writeFileSync(join(dir, 'cfg', 'config.json'), JSON.stringify({ profiles: { work: { apiKey: KEY } } }), { mode: 0o600 });
  input = join(dir, 'big.ndjson');
  ndjsonInput(input, N);
  journal = join(dir, 'big.journal');
  report = join(dir, 'report.ndjson');

  // The interrupted run: sent to host A with --base-url and --profile, Ctrl-C part-way.
  const args = ['--profile', 'work', '--base-url', hostA.baseUrl, 'batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--resume', journal, '--report', report];
  printed = await new Promise<string>((resolve) => {
    const child = spawnCli(args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const poll = setInterval(() => {
      if (records(journal) >= 5) {
        clearInterval(poll);
        child.kill('SIGINT');
      }
    }, 2);
    child.on('close', () => resolve(stderr));
  });
});
afterAll(async () => {
  await hostA.close();
  await hostB.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('mailroom batch: a resume goes to the same API with the same key, or is refused', () => {
  it('the journal records the host and a fingerprint of the key, never the key', () => {
    const header = JSON.parse(readFileSync(journal, 'utf8').split('\n')[0]!) as Record<string, unknown>;
    expect(header.api).toMatchObject({ baseUrl: hostA.baseUrl, profile: 'work', key: expect.stringMatching(/^sha256:[0-9a-f]{16}$/) });
    expect(readFileSync(journal, 'utf8')).not.toContain(KEY);
    expect(printed).not.toContain(KEY);
  });

  it('a resume that would go to another host (MAILROOM_BASE_URL) exits 2 with one line naming both, nothing sent', async () => {
    const size = statSync(journal).size;
    const r = await runCli(['batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--resume', journal], { env, configDir: join(dir, 'cfg') });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^mailroom: --resume .*journal was sent to ${hostA.baseUrl}.* this run would send to ${hostB.baseUrl}`, 'm'));
    expect(r.stderr).toMatch(/--base-url .*--allow-other-host/);
    expect(await hostB.emails()).toHaveLength(0);
    expect(statSync(journal).size).toBe(size);
  });

  it('a resume with another API key exits 2 naming the fingerprints, not the keys', async () => {
    const other = 'sk_test_another_key_never_to_be_printed_42';
    const r = await runCli(['--base-url', hostA.baseUrl, 'batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--resume', journal, '--api-key', other], {
      env,
      configDir: join(dir, 'cfg'),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^mailroom: --resume .*another API key .*sha256:[0-9a-f]{16}.*sha256:[0-9a-f]{16}/m);
    expect(r.stderr).toMatch(/--allow-other-key/);
    expect(r.stderr).not.toContain(other);
    expect(r.stderr).not.toContain(KEY);
  });

  it('the printed resume command, run verbatim in a shell where MAILROOM_BASE_URL is another host, finishes the run on the right host', async () => {
    const line = /to finish, run again with the same flags: (mailroom .*)$/m.exec(printed)?.[1];
    expect(line).toBeDefined();
    expect(line).toContain(`--base-url ${hostA.baseUrl}`);
    expect(line).toContain('--profile work');
    expect(line).toContain(`--report ${report}`);
    const sentBefore = (await hostA.emails()).length;
    expect(sentBefore).toBeGreaterThan(0);
    expect(sentBefore).toBeLessThan(N);
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn('sh', ['-c', `mailroom() { "${process.execPath}" "${BIN}" "$@"; }\n${line}`], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(r.stderr).toMatch(/Sent \d[\d,]* of 4,000 emails/);
    expect(r.code).toBe(0);
    expect(await hostB.emails()).toHaveLength(0);
    expect(exactlyOnce(await hostA.emails(), N)).toEqual({ arrived: N, distinctKeys: N, distinctRecipients: N });
    expect(readFileSync(report, 'utf8').trim().split('\n')).toHaveLength(N);
  });
});
