import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/context.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { fallbackWarning } from '../helpers/keychain.js';

// A key is saved together with the host it was checked against.
let here: TestSandbox;
let there: TestSandbox;
let dir: string;
beforeAll(async () => {
  [here, there] = await Promise.all([withSandbox(), withSandbox()]);
});
afterAll(async () => {
  await Promise.all([here.close(), there.close()]);
});
beforeEach(() => {
  dir = tempConfigDir();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const store = (profiles: object) => writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
const stored = () => (JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: Record<string, Record<string, string>> }).profiles;

describe('login saves the key with the host it checked it on', () => {
  it('plain login with MAILROOM_BASE_URL: checked there and saved with that URL, so a new shell uses the same host', async () => {
    const r = await runInProcess(['login', '--api-key-stdin'], { configDir: dir, input: here.apiKey, env: { MAILROOM_BASE_URL: here.baseUrl } });
    expect(r.code).toBe(0);
    expect(stored().default).toEqual({ apiKey: here.apiKey, baseUrl: here.baseUrl });
    // A new shell without the variable.
    const check = await runInProcess(['check', '--json'], { configDir: dir });
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ baseUrl: here.baseUrl, keyOrigin: 'profile default' });
  });

  it('login --profile prod checks on prod\'s stored host, not MAILROOM_BASE_URL, and keeps it', async () => {
    store({ prod: { baseUrl: there.baseUrl } });
    const r = await runInProcess(['login', '--api-key-stdin', '--profile', 'prod'], { configDir: dir, input: there.apiKey, env: { MAILROOM_BASE_URL: here.baseUrl } });
    expect(r.code).toBe(0);
    expect(stored().prod).toEqual({ apiKey: there.apiKey, baseUrl: there.baseUrl });
    expect(r.stderr).toBe(`${fallbackWarning(dir)}mailroom: note: checked on ${there.baseUrl}, the base URL of profile prod; MAILROOM_BASE_URL (${here.baseUrl}) is not used with --profile prod\n`);
    const check = await runInProcess(['check', '--profile', 'prod', '-q'], { configDir: dir });
    expect(check.code).toBe(0);
    // The key of the other sandbox, checked on prod's host, is refused there and nothing is saved.
    const wrong = await runInProcess(['login', '--api-key-stdin', '--profile', 'prod'], { configDir: dir, input: here.apiKey, env: { MAILROOM_BASE_URL: here.baseUrl } });
    expect(wrong.code).toBe(3);
    expect(stored().prod?.apiKey).toBe(there.apiKey);
  });

  it('a new profile with MAILROOM_BASE_URL: checked there and saved with it', async () => {
    const r = await runInProcess(['login', '--api-key-stdin', '--profile', 'ci'], { configDir: dir, input: here.apiKey, env: { MAILROOM_BASE_URL: here.baseUrl } });
    expect(r.code).toBe(0);
    expect(stored().ci).toEqual({ apiKey: here.apiKey, baseUrl: here.baseUrl });
    expect((await runInProcess(['check', '--profile', 'ci', '-q'], { configDir: dir })).code).toBe(0);
  });

  it('a profile stored for one host and MAILROOM_BASE_URL naming another: exit 2, nothing sent or saved, both ways on named', async () => {
    store({ default: { baseUrl: there.baseUrl } });
    const r = await runInProcess(['login', '--api-key-stdin'], { configDir: dir, input: here.apiKey, env: { MAILROOM_BASE_URL: here.baseUrl } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `mailroom: MAILROOM_BASE_URL (${here.baseUrl}) is not the base URL of profile default (${there.baseUrl}): refusing to save a key for another host\n` +
        `  to save it for ${here.baseUrl}, say so: mailroom login --base-url ${here.baseUrl}\n` +
        `  to log in to ${there.baseUrl}, unset MAILROOM_BASE_URL\n`,
    );
    expect(stored().default).toEqual({ baseUrl: there.baseUrl });
  });

  it('--base-url moves a profile to another host, and says so', async () => {
    store({ default: { baseUrl: there.baseUrl } });
    const r = await runInProcess(['login', '--api-key-stdin', '--base-url', here.baseUrl], { configDir: dir, input: here.apiKey, env: { MAILROOM_BASE_URL: here.baseUrl } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`${fallbackWarning(dir)}mailroom: note: profile default's base URL is now ${here.baseUrl} (was ${there.baseUrl})\n`);
    expect(stored().default).toEqual({ apiKey: here.apiKey, baseUrl: here.baseUrl });
  });

  it('keys create --save-as into a profile stored for another host says that its base URL changed', async () => {
    store({ other: { baseUrl: there.baseUrl } });
    const r = await runInProcess(['keys', 'create', '--name', 'ci', '--save-as', 'other', '--workspace', here.workspaceId, '--json'], { configDir: dir, env: { MAILROOM_API_KEY: here.apiKey, MAILROOM_BASE_URL: here.baseUrl } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`mailroom: note: profile other's base URL is now ${here.baseUrl} (was ${there.baseUrl})\n`);
    expect(stored().other?.baseUrl).toBe(here.baseUrl);
  });
});

describe('config set api-key: a key without a check', () => {
  it('says which host the stored key is for when the command line points elsewhere', async () => {
    const r = await runInProcess(['config', 'set', 'api-key', '-'], { configDir: dir, input: here.apiKey, env: { MAILROOM_BASE_URL: here.baseUrl } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      fallbackWarning(dir) +
        `mailroom: note: the key is stored for https://api.smashsend.com (the default), not ${here.baseUrl} (environment (MAILROOM_BASE_URL)): ` +
        `\`mailroom config set base-url ${here.baseUrl}\` stores it for that host (\`mailroom login\` checks a key and saves it with its host)\n`,
    );
    store({ default: { baseUrl: here.baseUrl } });
    const same = await runInProcess(['config', 'set', 'api-key', '-'], { configDir: dir, input: here.apiKey, env: { MAILROOM_BASE_URL: here.baseUrl } });
    expect(same).toMatchObject({ code: 0, stderr: fallbackWarning(dir) });
  });
});
