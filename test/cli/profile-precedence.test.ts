import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/context.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';

// Two accounts: the environment points at `ambient`, the stored profile "prod" at `prod`.
let ambient: TestSandbox;
let prod: TestSandbox;
let dir: string;
beforeAll(async () => {
  [ambient, prod] = await Promise.all([withSandbox(), withSandbox()]);
});
afterAll(async () => {
  await Promise.all([ambient.close(), prod.close()]);
});
beforeEach(async () => {
  dir = tempConfigDir();
  await Promise.all([ambient.reset(), prod.reset()]);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const store = (profiles: object) => writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
const envOf = (s: TestSandbox) => ({ MAILROOM_API_KEY: s.apiKey, MAILROOM_BASE_URL: s.baseUrl });
const SEND = ['send', '--from', 'ops@example.com', '--to', 'ada@example.com', '--subject', 'Hi', '--html', '<p>Hi</p>', '--json'];
const WARNING = 'mailroom: warning: --profile prod wins over the environment: its key and base URL are used, not MAILROOM_API_KEY and MAILROOM_BASE_URL\n';

describe('--profile beats the environment', () => {
  it('send --profile prod sends through prod, not the environment\'s account, with one warning line', async () => {
    store({ prod: { apiKey: prod.apiKey, baseUrl: prod.baseUrl } });
    const r = await runInProcess([...SEND, '--profile', 'prod'], { configDir: dir, env: envOf(ambient) });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(WARNING);
    expect(await prod.emails()).toHaveLength(1);
    expect(await ambient.emails()).toHaveLength(0);
  });

  it('check --profile ci reports the profile as the key\'s source', async () => {
    store({ ci: { apiKey: prod.apiKey, baseUrl: prod.baseUrl } });
    const r = await runInProcess(['check', '--profile', 'ci', '--json'], { configDir: dir, env: envOf(ambient) });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ keySource: 'profile', keyOrigin: 'profile ci', baseUrl: prod.baseUrl });
    expect(r.stderr).toBe(WARNING.replaceAll('prod', 'ci'));
  });

  it('sandbox emails --profile prod lists the sandbox the profile names, not the environment\'s', async () => {
    store({ prod: { apiKey: prod.apiKey, baseUrl: prod.baseUrl, workspace: prod.workspaceId } });
    expect((await runInProcess(SEND, { configDir: dir, env: { ...envOf(prod), MAILROOM_WORKSPACE: prod.workspaceId } })).code).toBe(0);
    const r = await runInProcess(['sandbox', 'emails', '--profile', 'prod', '--json'], { configDir: dir, env: envOf(ambient) });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const listed = JSON.parse(r.stdout) as { items: Array<{ to: string }> };
    expect(listed.items.map((e) => e.to)).toEqual(['ada@example.com']);
  });

  it('sandbox commands keep off the host and workspace login saved in the default profile (the API\'s, not a sandbox\'s)', async () => {
    store({ default: { apiKey: prod.apiKey, baseUrl: prod.baseUrl, workspace: prod.workspaceId } });
    expect((await runInProcess(SEND, { configDir: dir })).code).toBe(0);
    const r = await runInProcess(['sandbox', 'emails', '--json'], { configDir: dir, env: { MAILROOM_BASE_URL: ambient.baseUrl } });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect((JSON.parse(r.stdout) as { items: unknown[] }).items).toEqual([]);
  });

  it('no warning when the environment holds the same key and URL, or none', async () => {
    store({ prod: { apiKey: prod.apiKey, baseUrl: prod.baseUrl } });
    const same = await runInProcess(['check', '--profile', 'prod', '-q'], { configDir: dir, env: envOf(prod) });
    expect(same).toMatchObject({ code: 0, stderr: '' });
    const none = await runInProcess(['check', '--profile', 'prod', '-q'], { configDir: dir });
    expect(none).toMatchObject({ code: 0, stderr: '' });
  });

  it('a key alone in the environment (SMASHSEND_API_KEY) is ignored too, and named', async () => {
    store({ prod: { apiKey: prod.apiKey, baseUrl: prod.baseUrl } });
    const r = await runInProcess(['check', '--profile', 'prod', '--json'], { configDir: dir, env: { SMASHSEND_API_KEY: ambient.apiKey } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('mailroom: warning: --profile prod wins over the environment: its key is used, not SMASHSEND_API_KEY\n');
  });

  it('a profile without a stored URL means the default host, never the environment\'s', async () => {
    store({ prod: { apiKey: prod.apiKey } });
    const r = await runInProcess(['config', 'get', 'base-url', '--profile', 'prod', '--json'], { configDir: dir, env: envOf(ambient) });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ key: 'base-url', value: 'https://api.smashsend.com', source: 'default', origin: 'default' });
  });

  it('a profile without a key: exit 3 naming it, and that --profile leaves the environment\'s key aside', async () => {
    store({ prod: { workspace: 'wrk_p' } });
    const r = await runInProcess(['check', '--profile', 'prod'], { configDir: dir, env: envOf(ambient) });
    expect(r.code).toBe(3);
    expect(r.stderr.split('\n')[0]).toBe('mailroom: profile "prod" has no API key');
    expect(r.stderr).toContain('--profile prod leaves MAILROOM_API_KEY aside: drop --profile to use it');
  });

  it('flags still beat the profile; MAILROOM_PROFILE and the default profile stay below the environment', async () => {
    store({ prod: { apiKey: prod.apiKey, baseUrl: prod.baseUrl }, default: { apiKey: prod.apiKey, baseUrl: prod.baseUrl } });
    const flags = await runInProcess(['check', '--profile', 'prod', '--json', '--api-key', ambient.apiKey, '--base-url', ambient.baseUrl], { configDir: dir });
    expect(JSON.parse(flags.stdout)).toMatchObject({ keyOrigin: '--api-key', baseUrl: ambient.baseUrl });
    expect(flags.stderr).toBe('');
    for (const env of [{ ...envOf(ambient), MAILROOM_PROFILE: 'prod' }, envOf(ambient)]) {
      const r = await runInProcess(['check', '--json'], { configDir: dir, env });
      expect(JSON.parse(r.stdout)).toMatchObject({ keyOrigin: 'MAILROOM_API_KEY', baseUrl: ambient.baseUrl });
      expect(r.stderr).toBe('');
    }
  });
});

describe('each value\'s source in whoami, doctor and -v', () => {
  it('whoami names where the profile, key, base URL and workspace came from', async () => {
    store({ prod: { apiKey: prod.apiKey, baseUrl: prod.baseUrl } });
    const r = await runInProcess(['whoami', '--profile', 'prod', '--workspace', prod.workspaceId], { configDir: dir, tty: true, color: false });
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').map((l) => l.replace(/\s+/g, ' ').trim());
    expect(lines).toEqual(expect.arrayContaining([
      'profile prod (flag (--profile))',
      'key from profile prod',
      `api ${prod.baseUrl}`,
      'api from profile prod',
      `workspace ${prod.workspaceId}`,
      'workspace from flag (--workspace)',
    ]));
    const json = await runInProcess(['whoami', '--profile', 'prod', '--json'], { configDir: dir, env: { MAILROOM_WORKSPACE: prod.workspaceId } });
    expect(JSON.parse(json.stdout)).toMatchObject({
      profile: 'prod', profileSource: 'flag', profileOrigin: '--profile',
      keySource: 'profile', keyOrigin: 'profile prod',
      baseUrl: prod.baseUrl, baseUrlSource: 'profile', baseUrlOrigin: 'profile prod',
      workspace: prod.workspaceId, workspaceSource: 'env', workspaceOrigin: 'MAILROOM_WORKSPACE',
    });
  });

  it('doctor names the source of the profile, key, base URL and workspace', async () => {
    store({ prod: { apiKey: prod.apiKey, baseUrl: prod.baseUrl } });
    const r = await runInProcess(['doctor', '--profile', 'prod', '--json'], { configDir: dir, env: envOf(ambient) });
    const checks = (JSON.parse(r.stdout) as { checks: { name: string; detail: string }[] }).checks;
    const detail = (name: string) => checks.find((c) => c.name === name)?.detail;
    expect(detail('profile')).toBe('prod (flag (--profile))');
    expect(detail('API key')).toBe(`sk_live_…${prod.apiKey.slice(-4)} (profile prod)`);
    expect(detail('base URL')).toBe(`${prod.baseUrl} (profile prod)`);
  });

  it('-v says, before the first request, where each value came from', async () => {
    store({ prod: { apiKey: prod.apiKey, baseUrl: prod.baseUrl } });
    const r = await runInProcess(['check', '-q', '-v', '--profile', 'prod', '--timeout', '5000'], { configDir: dir, env: { MAILROOM_WORKSPACE: prod.workspaceId } });
    expect(r.code).toBe(0);
    // The first line, before the request log (and any pacing note).
    const lines = r.stderr.split('\n');
    expect(lines[0]).toBe(
      'settings: profile prod (flag (--profile)); key sk_live_…' + prod.apiKey.slice(-4) + ' (profile prod); base URL ' + prod.baseUrl + ' (profile prod); workspace ' + prod.workspaceId + ' (environment (MAILROOM_WORKSPACE)); timeout 5000 ms (flag (--timeout)); max retries 3 (default)',
    );
    expect(lines.filter((l) => l.startsWith('settings: '))).toHaveLength(1);
    expect(lines.findIndex((l) => l.startsWith('→ '))).toBeGreaterThan(0);
    expect(r.stderr).not.toContain(prod.apiKey);
  });
});
