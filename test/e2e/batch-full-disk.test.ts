import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv } from '../helpers/cli.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { exactlyOnce, ndjsonInput, reportIndexes, sandboxEnv } from '../helpers/batch.js';

/** Real full filesystems: small tmpfs mounts (root only, as on the build machine). */
let sandbox: TestSandbox;
let dir: string;
let env: Record<string, string>;
const mounts: string[] = [];
const canMount = process.getuid?.() === 0;

function mountTmpfs(path: string, size: string): void {
  mkdirSync(path, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', path]);
  if (r.status !== 0) throw new Error(`mount failed: ${r.stderr}`);
  mounts.push(path);
}
const grow = (path: string) => expect(spawnSync('mount', ['-o', 'remount,size=16m', path]).status).toBe(0);

beforeAll(async () => {
  sandbox = await withSandbox();
  dir = mkdtempSync(join(tmpdir(), 'mailroom-batch-full-'));
  env = cleanEnv(join(dir, 'cfg'), sandboxEnv(sandbox, join(dir, 'state')));
});
afterAll(async () => {
  for (const m of mounts.reverse()) spawnSync('umount', [m]);
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => sandbox.reset());

function run(command: string, extraEnv: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', `mailroom() { "${process.execPath}" "${BIN}" "$@"; }\n${command}`], { env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const resumeLine = (stderr: string) => /to finish, run again with the same flags: (mailroom .*)$/m.exec(stderr)?.[1];

describe.skipIf(!canMount)('mailroom batch on a full disk (real tmpfs)', () => {
  it('the state directory fills up: requests in flight settle, the summary and resume command print, exit 9; the journal ends on a whole line; the printed command finishes the run exactly once', async () => {
    const N = 6000;
    const state = join(dir, 'full-state');
    mountTmpfs(state, '96k');
    const input = join(dir, 'in.ndjson');
    ndjsonInput(input, N);
    const r = await run(`mailroom batch ${input} --from ops@example.com --subject Hi`, { MAILROOM_STATE_DIR: state });
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stderr).toMatch(/^mailroom: cannot write .*: no space left on device/m);
    expect(r.stderr).toMatch(/Stopped after sending/);
    expect(r.code).toBe(9);
    const line = resumeLine(r.stderr);
    expect(line).toBeDefined();
    const journal = /--resume (\S+)/.exec(line!)![1]!;
    expect(readFileSync(journal, 'utf8').endsWith('\n')).toBe(true);
    const sentBefore = (await sandbox.emails()).length;
    expect(sentBefore).toBeGreaterThan(0);
    expect(sentBefore).toBeLessThan(N);

    grow(state);
    // A torn last line (a crash mid-write) must not stop a resume either.
    appendFileSync(journal, '{"ok":[[4');
    const done = await run(line!, { MAILROOM_STATE_DIR: state });
    expect(done.stderr).toMatch(/Sent \d[\d,]* of 6,000 emails/);
    expect(done.code).toBe(0);
    expect(exactlyOnce(await sandbox.emails(), N)).toEqual({ arrived: N, distinctKeys: N, distinctRecipients: N });
  });

  it('--report on a full disk: no crash on a closed journal, exit 9 with the resume command; resumed with room, the report is complete', async () => {
    const N = 6000;
    const out = join(dir, 'full-out');
    mountTmpfs(out, '64k');
    const input = join(dir, 'in2.ndjson');
    ndjsonInput(input, N);
    const report = join(out, 'report.ndjson');
    const r = await run(`mailroom batch ${input} --from ops@example.com --subject Hi --report ${report} --resume ${join(dir, 'r.journal')}`);
    expect(r.stderr).not.toMatch(/ERR_OUT_OF_RANGE|^\s+at /m);
    expect(r.stderr).toMatch(/^mailroom: cannot write .*report.*: no space left on device/m);
    expect(r.code).toBe(9);
    const line = resumeLine(r.stderr);
    expect(line).toContain(`--report ${report}`);
    grow(out);
    const done = await run(line!);
    expect(done.code).toBe(0);
    expect(exactlyOnce(await sandbox.emails(), N)).toEqual({ arrived: N, distinctKeys: N, distinctRecipients: N });
    expect(reportIndexes(report)).toEqual({ lines: N, distinct: N, min: 0, max: N - 1, withId: N });
  });
});
