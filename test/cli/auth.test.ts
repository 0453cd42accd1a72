import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { tempConfigDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/context.js';
import { fallbackWarning } from '../helpers/keychain.js';

let sandbox: TestSandbox;
let dir: string;
beforeAll(async () => {
  sandbox = await withSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => {
  dir = tempConfigDir();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const storeFile = () => join(dir, 'config.json');
const stored = () => JSON.parse(readFileSync(storeFile(), 'utf8')) as { profiles: Record<string, Record<string, string>> };

describe('mailroom login', () => {
  it('reads the key from stdin, checks it, then saves it in a 0600 file and shows who it saved, masked', async () => {
    const r = await runInProcess(['login', '--api-key-stdin', '--base-url', `${sandbox.baseUrl}/v1`, '--workspace', sandbox.workspaceId], { configDir: dir, input: `${sandbox.apiKey}\n` });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toEqual({
      profile: 'default',
      displayName: 'Sandbox key',
      role: 'API_USER',
      key: `sk_live_…${sandbox.apiKey.slice(-4)}`,
      baseUrl: sandbox.baseUrl,
      workspace: sandbox.workspaceId,
      keyIn: 'file',
      configFile: storeFile(),
    });
    expect(r.stderr).toBe(fallbackWarning(dir));
    expect(r.stdout + r.stderr).not.toContain(sandbox.apiKey);
    expect(statSync(storeFile()).mode & 0o777).toBe(0o600);
    expect(stored().profiles.default).toEqual({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl, workspace: sandbox.workspaceId });

    // The saved profile is what later commands use, with provenance "profile default".
    const check = await runInProcess(['check', '--json'], { configDir: dir });
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ keySource: 'profile', keyOrigin: 'profile default', baseUrl: sandbox.baseUrl });
  });

  it('says when a key in the environment will keep overriding the one it saved', async () => {
    const r = await runInProcess(['login', '--api-key-stdin', '--base-url', sandbox.baseUrl], { configDir: dir, input: `${sandbox.apiKey}\n`, env: { SMASHSEND_API_KEY: 'sk_live_someotherkey0000000001' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`${fallbackWarning(dir)}mailroom: note: SMASHSEND_API_KEY overrides the stored key while it is set\n`);
    expect(stored().profiles.default?.apiKey).toBe(sandbox.apiKey);
    const quiet = await runInProcess(['login', '--api-key-stdin', '--base-url', sandbox.baseUrl], { configDir: dir, input: `${sandbox.apiKey}\n`, env: { MAILROOM_API_KEY: sandbox.apiKey } });
    expect(quiet).toMatchObject({ code: 0, stderr: fallbackWarning(dir) });
  });

  it('refuses a key the API rejects, exit 3, and saves nothing', async () => {
    const r = await runInProcess(['login', '--api-key-stdin', '--base-url', sandbox.baseUrl], { configDir: dir, input: 'sk_live_notarealkeynotarealkey\n' });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe(`mailroom: ${sandbox.baseUrl} rejected this key (401); nothing was saved`);
    expect(r.stderr).not.toContain('sk_live_notarealkeynotarealkey');
    expect(existsSync(storeFile())).toBe(false);
  });

  it('without a terminal or --api-key-stdin, exits 2 with a hint and sends nothing', async () => {
    // Port 9 has no listener: had a request been made the exit code would be 6.
    const r = await runInProcess(['login', '--base-url', 'http://127.0.0.1:9'], { configDir: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`mailroom: no terminal to ask for the API key\n  pipe it instead: printf '%s' "$SMASHSEND_API_KEY" | mailroom login --api-key-stdin\n`);
    expect(existsSync(storeFile())).toBe(false);
  });

  it('rejects an empty stdin and a bad workspace id with exit 2', async () => {
    const empty = await runInProcess(['login', '--api-key-stdin', '--base-url', 'http://127.0.0.1:9'], { configDir: dir, input: '\n' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe('mailroom: --api-key-stdin: stdin was empty\n');
    const ws = await runInProcess(['login', '--api-key-stdin', '--workspace', 'ws_1', '--base-url', 'http://127.0.0.1:9'], { configDir: dir, input: 'sk_live_x\n' });
    expect(ws.code).toBe(2);
    expect(ws.stderr).toBe('mailroom: --workspace: "ws_1" is not a workspace id (expected wrk_...)\n');
  });

});

describe('mailroom logout and profiles', () => {
  it('lists profiles with the active one marked, then logs out, removing only the key', async () => {
    for (const [profile, extra] of [['default', []], ['ci', ['--workspace', sandbox.workspaceId]]] as const) {
      const r = await runInProcess(['login', '--api-key-stdin', '--profile', profile, '--base-url', sandbox.baseUrl, ...extra], { configDir: dir, input: sandbox.apiKey });
      expect(r.code).toBe(0);
    }
    const masked = `sk_live_…${sandbox.apiKey.slice(-4)}`;
    const list = await runInProcess(['profiles'], { configDir: dir, env: { MAILROOM_PROFILE: 'ci' } });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual({
      items: [
        { name: 'ci', active: true, apiKey: masked, keyIn: 'file', baseUrl: sandbox.baseUrl, workspace: sandbox.workspaceId },
        { name: 'default', active: false, apiKey: masked, keyIn: 'file', baseUrl: sandbox.baseUrl },
      ],
      hasMore: false,
    });

    const table = await runInProcess(['profiles', '--no-color'], { configDir: dir, tty: 'stdout' });
    expect(table.stdout.split('\n').filter(Boolean).map((l) => l.trimEnd())).toEqual([
      expect.stringMatching(/^\s+PROFILE\s+KEY\s+API\s+WORKSPACE$/),
      expect.stringMatching(new RegExp(`^\\s+ci\\s+sk_live_…\\w{4}\\s+${sandbox.baseUrl.replace(/\./g, '\\.')}\\s+${sandbox.workspaceId}$`)),
      expect.stringMatching(/^\*\s+default\s+sk_live_…\w{4}\s+http/),
    ]);

    const out = await runInProcess(['logout', '--profile', 'ci'], { configDir: dir, env: { SMASHSEND_API_KEY: 'sk_live_fromtheenvironment' } });
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({ profile: 'ci', removed: true, from: 'file' });
    // Under --profile the variable is not read; it still is by commands without --profile.
    expect(out.stderr).toBe('mailroom: note: SMASHSEND_API_KEY is still set in this environment: commands without --profile keep using it.\n');
    expect(stored().profiles).toEqual({ ci: { baseUrl: sandbox.baseUrl, workspace: sandbox.workspaceId }, default: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl } });
    expect(statSync(storeFile()).mode & 0o777).toBe(0o600);

    const again = await runInProcess(['logout', '--profile', 'ci'], { configDir: dir, tty: 'stdout' });
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('Profile "ci" has no stored key; nothing to do.\n');

    const check = await runInProcess(['check', '--profile', 'ci'], { configDir: dir });
    expect(check.code).toBe(3);
    expect(check.stderr).toContain('mailroom: profile "ci" has no API key');
    expect(check.stderr).toContain('run `mailroom login --profile ci`');
    const plain = await runInProcess(['logout'], { configDir: dir, env: { SMASHSEND_API_KEY: 'sk_live_fromtheenvironment' } });
    expect(plain.stderr).toBe('mailroom: note: SMASHSEND_API_KEY is still set in this environment and will keep being used.\n');
  });

  it('says how to start when nothing is stored', async () => {
    const r = await runInProcess(['profiles', '--no-color'], { configDir: dir, tty: 'stdout' });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('no stored profiles: run `mailroom login` to create one\n');
    const json = await runInProcess(['profiles'], { configDir: dir });
    expect(JSON.parse(json.stdout)).toEqual({ items: [], hasMore: false });
  });
});
