import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';

/** --api-key-file and --token-file name files relative to the command's own directory, like every other path flag. */
let sandbox: TestSandbox;
let dir: string;
beforeAll(async () => {
  sandbox = await withSandbox();
  dir = mkdtempSync(join(tmpdir(), 'mailroom-secret-files-'));
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('secret files are read relative to the command directory', () => {
  it('--api-key-file key.txt', async () => {
    writeFileSync(join(dir, 'key.txt'), `${sandbox.apiKey}\n`);
    const r = await runInProcess(['check', '-q', '--api-key-file', 'key.txt'], { cwd: dir, env: { MAILROOM_BASE_URL: sandbox.baseUrl } });
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('a changed file is read again by the next command (no stale value kept between runs)', async () => {
    writeFileSync(join(dir, 'key.txt'), 'sk_live_notarealkeynotarealkey\n');
    const r = await runInProcess(['check', '-q', '--api-key-file', 'key.txt'], { cwd: dir, env: { MAILROOM_BASE_URL: sandbox.baseUrl } });
    expect(r.code).toBe(3);
    expect(r.stderr).not.toContain('notarealkeynotarealkey');
  });

  it('--token-file token.txt', async () => {
    writeFileSync(join(dir, 'token.txt'), 'wht_0123456789abcdefghij\n');
    writeFileSync(join(dir, 'payload.json'), '{"event":"CONTACT_CREATED"}');
    const r = await runInProcess(['webhooks', 'verify', '--token-file', 'token.txt', '--payload', 'payload.json', '--signature', 'sha256=00'], { cwd: dir });
    expect(r.stderr).not.toContain('cannot read');
    expect(r.code).toBe(8);
  });
});
