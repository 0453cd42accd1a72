import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';

/** `check` through run() with the factory's transport (opened on first use, closed by run()). */
let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await withSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

describe('check in-process', () => {
  it('a valid key: exit 0, the key masked, where it came from', async () => {
    const r = await runInProcess(['check', '--json'], { env: { MAILROOM_BASE_URL: sandbox.baseUrl, MAILROOM_API_KEY: sandbox.apiKey } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({ status: 'SUCCEED', keySource: 'env', keyOrigin: 'MAILROOM_API_KEY', baseUrl: sandbox.baseUrl });
    expect(r.stdout).not.toContain(sandbox.apiKey);
  });

  it('-q prints nothing on success', async () => {
    const r = await runInProcess(['check', '-q'], { env: { MAILROOM_BASE_URL: sandbox.baseUrl, MAILROOM_API_KEY: sandbox.apiKey } });
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('an unknown key exits 3 with one line naming the key source, never the key', async () => {
    const key = 'sk_live_notarealkeynotarealkey';
    const r = await runInProcess(['check', '-q'], { env: { MAILROOM_BASE_URL: sandbox.baseUrl, MAILROOM_API_KEY: key } });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^mailroom: /);
    expect(r.stderr).not.toContain(key);
  });

  it('no key at all exits 3 before any request', async () => {
    const r = await runInProcess(['check'], { env: { MAILROOM_BASE_URL: sandbox.baseUrl } });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
  });
});

describe('a 401 names where the key and the base URL came from', () => {
  it('MAILROOM_PROFILE=slow check, MAILROOM_BASE_URL pointing elsewhere: the hint names MAILROOM_BASE_URL, not only `mailroom login`', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-401-'));
    try {
      // The profile's key is valid on its own API; MAILROOM_BASE_URL sends it to this sandbox instead.
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { slow: { apiKey: 'sk_live_validelsewherevalidelsewhere', baseUrl: 'https://api.smashsend.com' } } }), { mode: 0o600 });
      // (With --profile slow the profile's own URL would be used: docs/configuration.md.)
      const r = await runInProcess(['check'], { env: { MAILROOM_CONFIG_DIR: dir, MAILROOM_PROFILE: 'slow', MAILROOM_BASE_URL: sandbox.baseUrl } });
      expect(r.code).toBe(3);
      expect(r.stderr.split('\n')).toContain(
        `  a key is valid only on the API that issued it: check MAILROOM_BASE_URL, or run \`mailroom login --profile slow\` to store a valid key; the key came from profile slow, the base URL ${sandbox.baseUrl} from environment (MAILROOM_BASE_URL)`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('no key configured: the hint offers --sandbox', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-401-'));
    try {
      const r = await runInProcess(['check'], { env: { MAILROOM_CONFIG_DIR: dir } });
      expect(r.code).toBe(3);
      expect(r.stderr).toContain('  no account yet? add --sandbox to try any command against a local API that sends nothing\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
