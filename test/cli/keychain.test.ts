import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { tempConfigDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/context.js';
import { fallbackWarning, memoryKeychain, noKeychain } from '../helpers/keychain.js';

/**
 * Where keys are kept (docs/configuration.md, "Where keys are kept"), in-process against a keychain
 * in memory or none. The real Secret Service, on a private D-Bus: test/e2e/keychain.test.ts.
 */
let sandbox: TestSandbox;
let dir: string;
let keychain: ReturnType<typeof memoryKeychain>;
beforeAll(async () => {
  sandbox = await withSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => {
  dir = tempConfigDir();
  keychain = memoryKeychain();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const file = () => join(dir, 'config.json');
const stored = () => JSON.parse(readFileSync(file(), 'utf8')).profiles as Record<string, Record<string, unknown>>;
const account = (profile: string) => `mailroom-cli\n${profile}:${dir}`;
const login = (args: string[] = [], opts: { keychain?: typeof keychain | typeof noKeychain; env?: Record<string, string> } = {}) =>
  runInProcess(['login', '--api-key-stdin', '--base-url', sandbox.baseUrl, ...args], { configDir: dir, input: sandbox.apiKey, keychain: opts.keychain ?? keychain, ...(opts.env ? { env: opts.env } : {}) });

describe('login with a keychain', () => {
  it('keeps the key in the keychain; the file holds only where it is; later commands read it from there', async () => {
    const r = await login(['-q']);
    expect(r).toEqual({ stdout: '', stderr: '', code: 0 });
    expect(keychain.entries.get(account('default'))).toBe(sandbox.apiKey);
    expect(readFileSync(file(), 'utf8')).not.toContain(sandbox.apiKey);
    expect(stored().default).toEqual({ baseUrl: sandbox.baseUrl, keychain: { service: 'mailroom-cli', account: `default:${dir}` } });

    const check = await runInProcess(['check', '--json'], { configDir: dir, keychain });
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ keySource: 'profile', keyOrigin: 'profile default', baseUrl: sandbox.baseUrl });
    const list = await runInProcess(['config', 'get', 'api-key', '--json'], { configDir: dir, keychain });
    expect(JSON.parse(list.stdout)).toEqual({ key: 'api-key', value: `sk_live_…${sandbox.apiKey.slice(-4)}`, source: 'profile', origin: 'profile default, system keychain' });
    const profiles = await runInProcess(['profiles'], { configDir: dir, keychain });
    expect(JSON.parse(profiles.stdout)).toEqual({ items: [{ name: 'default', active: true, keyIn: 'keychain', baseUrl: sandbox.baseUrl }], hasMore: false });
  });

  it('says where it kept the key', async () => {
    const r = await login([], { env: {} });
    expect(JSON.parse(r.stdout)).toMatchObject({ keyIn: 'keychain', configFile: file() });
    const tty = await runInProcess(['login', '--api-key-stdin', '--base-url', sandbox.baseUrl, '--no-color'], { configDir: dir, input: sandbox.apiKey, keychain, tty: 'stdout' });
    expect(tty.stdout).toMatch(/^key kept in +the system keychain$/m);
  });

  it('a key from a flag or the environment never reaches the keychain, even one that is down', async () => {
    await login(['-q']);
    keychain.down = true;
    const r = await runInProcess(['check', '-q'], { configDir: dir, keychain, env: { MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_BASE_URL: sandbox.baseUrl } });
    expect(r).toEqual({ stdout: '', stderr: '', code: 0 });
  });

  it('a keychain out of reach: exit 3, one line saying so, and the way round it', async () => {
    await login(['-q']);
    keychain.down = true;
    const r = await runInProcess(['check'], { configDir: dir, keychain });
    expect(r.code).toBe(3);
    expect(r.stderr.split('\n')[0]).toBe('mailroom: the key of profile default is in the system keychain, which cannot be reached here (the test keychain is down)');
    expect(r.stderr).toContain('MAILROOM_API_KEY');
    expect(r.stderr).not.toContain(sandbox.apiKey);
  });

  it('doctor says why the key of the profile cannot be had, not just "none"', async () => {
    await login(['-q']);
    keychain.down = true;
    const r = await runInProcess(['doctor', '--json'], { configDir: dir, keychain });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout).checks.find((c: { name: string }) => c.name === 'API key')).toEqual({
      name: 'API key',
      status: 'fail',
      detail: 'the key of profile default is in the system keychain, which cannot be reached here (the test keychain is down)',
      fix: 'unlock the keychain, or pass a key with MAILROOM_API_KEY or --api-key-file; on Linux the keychain is a Secret Service (gnome-keyring, KWallet, KeePassXC) on the session D-Bus',
    });
  });

  it('an entry removed from the keychain: exit 3, and how to store it again', async () => {
    await login(['-q', '--profile', 'ci']);
    keychain.entries.clear();
    const r = await runInProcess(['check', '--profile', 'ci'], { configDir: dir, keychain });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(`mailroom: the key of profile ci is no longer in the system keychain (mailroom-cli, ci:${dir})\n  store it again: mailroom login --profile ci\n`);
  });

  it('logout removes it from the keychain and the file', async () => {
    await login(['-q', '--workspace', sandbox.workspaceId]);
    const r = await runInProcess(['logout'], { configDir: dir, keychain });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ profile: 'default', removed: true, from: 'keychain' });
    expect(keychain.entries.size).toBe(0);
    expect(stored().default).toEqual({ baseUrl: sandbox.baseUrl, workspace: sandbox.workspaceId });
  });

  it('logout with the keychain out of reach still forgets the key, and says the entry stays', async () => {
    await login(['-q']);
    keychain.down = true;
    const r = await runInProcess(['logout', '-q'], { configDir: dir, keychain });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('mailroom: warning: the system keychain cannot be reached here (the test keychain is down): profile "default"\'s entry stays in it (service mailroom-cli) until removed there\n');
    expect(stored().default).toEqual({ baseUrl: sandbox.baseUrl });
  });

  it('--secure-storage off keeps it in the file, and the old keychain entry goes', async () => {
    await login(['-q']);
    const r = await login(['-q', '--secure-storage', 'off']);
    expect(r).toEqual({ stdout: '', stderr: '', code: 0 });
    expect(stored().default).toEqual({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl });
    expect(keychain.entries.size).toBe(0);
  });

  it('config set api-key and keys create --save-as keep the key in the keychain too', async () => {
    const set = await runInProcess(['config', 'set', 'api-key', '-', '--profile', 'hand'], { configDir: dir, keychain, input: 'sk_live_byhandbyhandbyhand1' });
    expect(set.code).toBe(0);
    expect(keychain.entries.get(account('hand'))).toBe('sk_live_byhandbyhandbyhand1');
    expect(stored().hand).toEqual({ keychain: { service: 'mailroom-cli', account: `hand:${dir}` } });
    const created = await runInProcess(['keys', 'create', '--name', 'ci', '--save-as', 'made', '-q'], { configDir: dir, keychain, env: { MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_BASE_URL: sandbox.baseUrl, MAILROOM_WORKSPACE: sandbox.workspaceId } });
    expect(created).toEqual({ stdout: '', stderr: '', code: 0 });
    expect(keychain.entries.get(account('made'))).toMatch(/^sk_live_/);
    expect(readFileSync(file(), 'utf8')).not.toMatch(/sk_live_/);
    const unset = await runInProcess(['config', 'unset', 'api-key', '--profile', 'hand'], { configDir: dir, keychain });
    expect(unset.code).toBe(0);
    expect(keychain.entries.has(account('hand'))).toBe(false);
  });
});

describe('no keychain here', () => {
  it('auto (the default): the file, mode 0600, with one warning', async () => {
    const r = await login(['-q'], { keychain: noKeychain });
    expect(r).toEqual({ stdout: '', stderr: fallbackWarning(dir), code: 0 });
    expect(stored().default).toEqual({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl });
    expect(statSync(file()).mode & 0o777).toBe(0o600);
  });

  it.each([
    ['--secure-storage required', ['--secure-storage', 'required'], {}, '--secure-storage'],
    ['MAILROOM_SECURE_STORAGE=required', [], { MAILROOM_SECURE_STORAGE: 'required' }, 'MAILROOM_SECURE_STORAGE'],
  ])('%s: refused before the key is checked, exit 2, nothing saved', async (_name, args, env, origin) => {
    writeFileSync(file(), JSON.stringify({ profiles: { default: { workspace: 'wrk_kept' } } }), { mode: 0o600 });
    const before = readFileSync(file(), 'utf8');
    const sent = (await sandbox.emails()).length;
    const r = await login(args, { keychain: noKeychain, env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe(`mailroom: no system keychain to keep the key in (no keychain in this test), and secure-storage is "required" (${origin}): nothing was saved`);
    expect(readFileSync(file(), 'utf8')).toBe(before);
    expect((await sandbox.emails()).length).toBe(sent);
  });

  it('a profile set to required refuses config set api-key; a bad mode is refused, never taken for auto', async () => {
    expect((await runInProcess(['config', 'set', 'secure-storage', 'required', '--profile', 'ci'], { configDir: dir, keychain: noKeychain })).code).toBe(0);
    const before = readFileSync(file(), 'utf8');
    const r = await runInProcess(['config', 'set', 'api-key', '-', '--profile', 'ci'], { configDir: dir, keychain: noKeychain, input: 'sk_live_byhandbyhandbyhand1' });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toContain('secure-storage is "required" (profile ci): nothing was saved');
    expect(readFileSync(file(), 'utf8')).toBe(before);

    const bad = await runInProcess(['config', 'set', 'secure-storage', 'requried'], { configDir: dir, keychain: noKeychain });
    expect(bad).toEqual({ stdout: '', stderr: 'mailroom: secure-storage: "requried" is not one of auto, required, off\n', code: 2 });
    const badEnv = await login(['-q'], { keychain: noKeychain, env: { MAILROOM_SECURE_STORAGE: 'yes' } });
    expect(badEnv).toEqual({ stdout: '', stderr: 'mailroom: MAILROOM_SECURE_STORAGE: "yes" is not one of auto, required, off\n', code: 2 });
  });
});

describe('login --migrate', () => {
  it('moves every key kept in the file into the keychain; they keep working', async () => {
    writeFileSync(file(), JSON.stringify({ profiles: { default: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl }, ci: { apiKey: 'sk_live_ciciciciciciciciici1', workspace: 'wrk_1' }, bare: { workspace: 'wrk_2' } } }), { mode: 0o600 });
    // A key in the file works as it always did.
    expect((await runInProcess(['check', '-q'], { configDir: dir, keychain })).code).toBe(0);
    const doctor = await runInProcess(['doctor', '--json'], { configDir: dir, keychain });
    expect(JSON.parse(doctor.stdout).checks.find((c: { name: string }) => c.name === 'key storage')).toEqual({
      name: 'key storage',
      status: 'warn',
      detail: 'system keychain available, secure-storage auto (default); default: config file, ci: config file, bare: no key',
      fix: 'mailroom login --migrate (moves them into the keychain)',
    });

    const r = await runInProcess(['login', '--migrate', '--json'], { configDir: dir, keychain });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ moved: ['default', 'ci'], configFile: file() });
    expect(readFileSync(file(), 'utf8')).not.toMatch(/sk_live_/);
    expect(keychain.entries.get(account('default'))).toBe(sandbox.apiKey);
    expect(keychain.entries.get(account('ci'))).toBe('sk_live_ciciciciciciciciici1');
    expect(stored().ci).toEqual({ workspace: 'wrk_1', keychain: { service: 'mailroom-cli', account: `ci:${dir}` } });
    expect((await runInProcess(['check', '-q'], { configDir: dir, keychain })).code).toBe(0);
    const after = await runInProcess(['doctor', '--json'], { configDir: dir, keychain });
    expect(JSON.parse(after.stdout).checks.find((c: { name: string }) => c.name === 'key storage')).toMatchObject({ status: 'ok', detail: expect.stringContaining('default: system keychain, ci: system keychain, bare: no key') });
  });

  it('with no keychain, nothing moves: exit 2, the file untouched', async () => {
    writeFileSync(file(), JSON.stringify({ profiles: { default: { apiKey: sandbox.apiKey } } }), { mode: 0o600 });
    const before = readFileSync(file(), 'utf8');
    const r = await runInProcess(['login', '--migrate'], { configDir: dir, keychain: noKeychain });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`mailroom: no system keychain to move the keys into (no keychain in this test): profile default's key stays in ${file()}`);
    expect(readFileSync(file(), 'utf8')).toBe(before);
  });

  it('takes no key', async () => {
    const r = await runInProcess(['login', '--migrate', '--api-key-stdin'], { configDir: dir, keychain, input: sandbox.apiKey });
    expect(r).toEqual({ stdout: '', stderr: 'mailroom: --migrate moves the keys already stored: it takes no key and no --secure-storage\n', code: 2 });
  });
});
