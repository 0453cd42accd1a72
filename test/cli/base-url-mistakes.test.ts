import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';

// The likely mistakes in a base URL get a line naming them and a documented exit code.
let sandbox: TestSandbox;
let hostPort: string;
beforeAll(async () => {
  sandbox = await withSandbox();
  hostPort = new URL(sandbox.baseUrl).host;
});
afterAll(() => sandbox.close());

describe('wrong base URLs', () => {
  it('https:// to a plain HTTP server: exit 6 at once (no retries), naming http:// as the likely fix, no OpenSSL text', async () => {
    const r = await runInProcess(['check', '--base-url', `https://${hostPort}`], { env: { MAILROOM_API_KEY: sandbox.apiKey } });
    expect(r.code).toBe(6);
    expect(r.stderr.split('\n')[0]).toBe(`mailroom: could not reach https://${hostPort}: it answers plain HTTP, not TLS`);
    expect(r.stderr).toContain(`  did you mean http://${hostPort}? (the base URL says https://)\n`);
    expect(r.stderr).not.toMatch(/ssl3|wrong version number|routines/i);
    // One attempt: trying again cannot help.
    const verbose = await runInProcess(['check', '-v', '--base-url', `https://${hostPort}`], { env: { MAILROOM_API_KEY: sandbox.apiKey } });
    expect(verbose.code).toBe(6);
    expect(verbose.stderr.match(/^→ GET/gm)).toHaveLength(1);
    expect(verbose.stderr).not.toContain('retrying');
    const json = await runInProcess(['send', '--base-url', `https://${hostPort}`, '--from', 'ops@example.com', '--to', 'ada@example.com', '--subject', 'Hi', '--html', '<p>Hi</p>'], { env: { MAILROOM_API_KEY: sandbox.apiKey } });
    expect(json.code).toBe(6);
    expect(json.stderr).toContain(`did you mean http://${hostPort}?`);
  });

  it('a path after the host (/api): exit 4 with a line naming the path and the host root', async () => {
    const r = await runInProcess(['check', '--base-url', `${sandbox.baseUrl}/api`], { env: { MAILROOM_API_KEY: sandbox.apiKey } });
    expect(r.code).toBe(4);
    expect(r.stderr.split('\n')[0]).toBe('mailroom: API 404 Not Found: No route GET /api/v1/api-keys/check');
    expect(r.stderr).toContain(`  the base URL ${sandbox.baseUrl}/api has a path after the host (/api): the API is at the host root (requests go to <base URL>/v1/...); did you mean ${sandbox.baseUrl}?\n`);
  });

  it('a 404 for an unknown id at the host root gets no such line', async () => {
    const r = await runInProcess(['webhooks', 'get', 'wh_doesnotexist1'], { env: { MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_BASE_URL: sandbox.baseUrl } });
    expect(r.code).toBe(4);
    expect(r.stderr).not.toContain('has a path after the host');
  });
});
