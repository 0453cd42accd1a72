import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { tempConfigDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/context.js';

let sandbox: TestSandbox;
let limited: TestSandbox;
let dir: string;
beforeAll(async () => {
  [sandbox, limited] = await Promise.all([withSandbox(), withSandbox({ config: { rateLimit: 0.01 } })]);
  dir = tempConfigDir();
});
afterAll(async () => {
  await Promise.all([sandbox.close(), limited.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const envFor = (s: TestSandbox, extra: Record<string, string> = {}) => ({ MAILROOM_BASE_URL: s.baseUrl, MAILROOM_API_KEY: s.apiKey, ...extra });

describe('mailroom check', () => {
  it('prints the check result as JSON when piped, with where the key came from, masked', async () => {
    const r = await runInProcess(['check'], { env: envFor(sandbox) });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: 'SUCCEED', displayName: 'Sandbox key', role: 'API_USER', keySource: 'env', keyOrigin: 'MAILROOM_API_KEY', baseUrl: sandbox.baseUrl });
    expect(out.key).toBe(`sk_live_…${sandbox.apiKey.slice(-4)}`);
    expect(r.stdout).not.toContain(sandbox.apiKey);
  });

  it('shows key/value lines on a terminal', async () => {
    const r = await runInProcess(['check', '--no-color'], { env: envFor(sandbox), tty: 'stdout' });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^status\s+SUCCEED$/m);
    expect(r.stdout).toMatch(/^name\s+Sandbox key$/m);
    expect(r.stdout).toMatch(/^role\s+API_USER$/m);
    expect(r.stdout).toMatch(/^key from\s+environment \(MAILROOM_API_KEY\)$/m);
    expect(r.stdout).not.toContain(sandbox.apiKey);
    expect(r.stdout).not.toContain('{');
  });

  it('is silent with -q and exits 0 (CI: mailroom check -q && deploy)', async () => {
    const r = await runInProcess(['check', '-q'], { env: envFor(sandbox) });
    expect(r).toEqual({ stdout: '', stderr: '', code: 0 });
  });

  it('reads SMASHSEND_API_KEY when MAILROOM_API_KEY is absent, and accepts a base URL ending in /v1', async () => {
    const r = await runInProcess(['check', '--json'], { env: { MAILROOM_BASE_URL: `${sandbox.baseUrl}/v1/`, SMASHSEND_API_KEY: sandbox.apiKey } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ keySource: 'env', keyOrigin: 'SMASHSEND_API_KEY', baseUrl: sandbox.baseUrl });
  });

  it('prefers --api-key over the environment', async () => {
    const r = await runInProcess(['check', '--api-key', sandbox.apiKey, '--json'], { env: envFor(sandbox, { MAILROOM_API_KEY: 'sk_live_wrongwrongwrongwrong' }) });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ keySource: 'flag', keyOrigin: '--api-key' });
  });

  it('exits 3 for a revoked key, with the request id and a hint that depends on where the key came from', async () => {
    const call = client(sandbox);
    const created = await call('POST', `/v1/workspaces/${sandbox.workspaceId}/api-keys`, { displayName: 'short-lived', role: 'API_USER' });
    const secret: string = created.body.apiKey.secretKey;
    expect((await call('DELETE', `/v1/workspaces/${sandbox.workspaceId}/api-keys/${created.body.apiKey.id}`)).status).toBe(200);

    const fromEnv = await runInProcess(['check'], { env: envFor(sandbox, { MAILROOM_API_KEY: secret }) });
    expect(fromEnv.code).toBe(3);
    expect(fromEnv.stdout).toBe('');
    const lines = fromEnv.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^mailroom: API 401 Unauthorized/);
    expect(lines).toContain(`  check MAILROOM_API_KEY (it overrides the stored profile); the key came from environment (MAILROOM_API_KEY), the base URL ${sandbox.baseUrl} from environment (MAILROOM_BASE_URL)`);
    expect(lines.at(-1)).toMatch(/^ {2}request id: \S+$/);
    expect(fromEnv.stderr).not.toContain(secret);

    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { apiKey: secret, baseUrl: sandbox.baseUrl } } }), { mode: 0o600 });
    const fromProfile = await runInProcess(['check'], { configDir: dir });
    expect(fromProfile.code).toBe(3);
    expect(fromProfile.stderr).toContain(`  run \`mailroom login\` to store a valid key; the key came from profile default, the base URL ${sandbox.baseUrl} from profile default\n`);
  });

  it('exits 3 with the ways to give a key when there is none', async () => {
    const r = await runInProcess(['check'], { env: { MAILROOM_BASE_URL: sandbox.baseUrl } });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('mailroom: no API key (profile "default" is not set up)\n  run `mailroom login`, or set MAILROOM_API_KEY, or pass --api-key\n  no account yet? add --sandbox to try any command against a local API that sends nothing\n');
  });

  // A CI secret the job cannot see (a pull request from a fork) is an empty variable: the message
  // says so, instead of telling the script to set a variable it did set.
  it.each([['MAILROOM_API_KEY'], ['SMASHSEND_API_KEY']])('exits 3 naming %s when it is set but empty', async (name) => {
    const r = await runInProcess(['check', '--json'], { env: { MAILROOM_BASE_URL: sandbox.baseUrl, [name]: '' } });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(`mailroom: no API key: ${name} is set but empty (in CI: a secret this job cannot read?)\n  run \`mailroom login\`, or set MAILROOM_API_KEY, or pass --api-key\n  no account yet? add --sandbox to try any command against a local API that sends nothing\n`);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { kind: 'auth', exitCode: 3, message: `no API key: ${name} is set but empty (in CI: a secret this job cannot read?)` } });
  });

  it('exits 5 when rate limited (a Retry-After beyond a minute is reported, not slept through)', async () => {
    const first = await runInProcess(['check', '-q'], { env: envFor(limited) });
    expect(first.code).toBe(0);
    const second = await runInProcess(['check'], { env: envFor(limited) });
    expect(second.code).toBe(5);
    expect(second.stderr).toMatch(/^mailroom: API 429 Too Many Requests/);
    expect(second.stderr).toMatch(/the API asks to wait \d+ s before retrying/);
  });

  it('exits 6 when the API cannot be reached, after retrying', async () => {
    const started = Date.now();
    const r = await runInProcess(['check', '--max-retries', '1'], { env: { MAILROOM_BASE_URL: 'http://127.0.0.1:9', MAILROOM_API_KEY: 'sk_live_whateverwhatever' } });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/^mailroom: could not reach http:\/\/127\.0\.0\.1:9: .*\n {2}check --base-url \/ MAILROOM_BASE_URL and your network or proxy \(HTTPS_PROXY, NO_PROXY\)\n$/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('exits 6 on a timeout', async () => {
    // A listener that never answers: the loopback port of a sandbox we are not going to answer from.
    const net = await import('node:net');
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const r = await runInProcess(['check', '--timeout', '300', '--max-retries', '0'], { env: { MAILROOM_BASE_URL: `http://127.0.0.1:${port}`, MAILROOM_API_KEY: 'sk_live_whateverwhatever' } });
      expect(r.code).toBe(6);
      expect(r.stderr).toBe(`mailroom: no answer from http://127.0.0.1:${port} within 300 ms\n  raise --timeout <ms> if the API is slow\n`);
    } finally {
      silent.close();
    }
  });

  it.each([
    ['not-a-url', 'MAILROOM_BASE_URL: "not-a-url" has no scheme: did you mean https://not-a-url?'],
    ['ftp://example.com', 'MAILROOM_BASE_URL: "ftp://example.com" must be an http(s) URL'],
  ])('rejects base URL %s with exit 2 and sends nothing', async (url, message) => {
    const r = await runInProcess(['check'], { env: { MAILROOM_BASE_URL: url, MAILROOM_API_KEY: 'sk_live_whateverwhatever' } });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`mailroom: ${message}`);
  });
});
