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
