import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';

/**
 * The key in a real Secret Service: gnome-keyring on a D-Bus session of this test's own
 * (dbus-run-session), its keyring in a temporary XDG data directory, unlocked with a throw-away
 * password; and the fallback with no D-Bus at all. The user's own keyring, bus and config are never
 * reached: every process runs with a fresh HOME, XDG directories, MAILROOM_CONFIG_DIR and nothing of
 * this process's environment but PATH. `.ci/run` installs the Debian packages when missing.
 */
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const tools = ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool'];
const missing = process.platform === 'linux' ? tools.filter((t) => !has(t)) : tools;
if (missing.length > 0) {
  console.warn(`mailroom keychain: ${missing.join(', ')} missing, the Secret Service tests are skipped (apt-get install dbus-daemon gnome-keyring libsecret-tools; .ci/run installs them)`);
}

let sandbox: TestSandbox;
let home: string;
beforeAll(async () => {
  sandbox = await withSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'mailroom-keychain-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const configDir = () => join(home, 'config', 'mailroom');
const file = () => join(configDir(), 'config.json');
const account = (profile: string) => `${profile}:${configDir()}`;

function isolatedEnv(extra: Record<string, string> = {}): Record<string, string> {
  for (const d of ['data', 'config', 'cache', 'state', 'run']) mkdirSync(join(home, d), { recursive: true, mode: 0o700 });
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_DATA_HOME: join(home, 'data'),
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_CACHE_HOME: join(home, 'cache'),
    XDG_STATE_HOME: join(home, 'state'),
    XDG_RUNTIME_DIR: join(home, 'run'),
    MAILROOM_CONFIG_DIR: configDir(),
    MAILROOM_BASE_URL: sandbox.baseUrl,
    ...extra,
  };
}

interface Step {
  code: number;
  stdout: string;
  stderr: string;
}

/** A process run to its end without blocking this one (the sandbox answering it runs here). */
function exec(command: string, args: string[], env: Record<string, string>, input = ''): Promise<Step> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'], timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}

/**
 * Runs each step as its own process, in order, inside one private D-Bus session whose
 * gnome-keyring is unlocked first: `mailroom <args>` or `secret-tool <args>` (a second program
 * reading the same store).
 */
async function inSession(steps: { cmd: 'mailroom' | 'secret-tool'; args: string[]; input?: string }[], extra: Record<string, string> = {}): Promise<Step[]> {
  const dir = join(home, 'steps');
  mkdirSync(dir, { recursive: true });
  const script = ['set -u', 'printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null'];
  steps.forEach((step, i) => {
    const argv = step.args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const program = step.cmd === 'mailroom' ? `'${process.execPath}' '${BIN}'` : 'secret-tool';
    if (step.input !== undefined) writeFileSync(join(dir, `${i}.in`), step.input);
    const stdin = step.input !== undefined ? `< '${join(dir, `${i}.in`)}'` : '< /dev/null';
    script.push(`${program} ${argv} ${stdin} > '${join(dir, `${i}.out`)}' 2> '${join(dir, `${i}.err`)}'; echo $? > '${join(dir, `${i}.code`)}'`);
  });
  const r = await exec('dbus-run-session', ['--', 'sh', '-c', script.join('\n')], isolatedEnv(extra));
  expect(r.code, r.stderr).toBe(0);
  return steps.map((_, i) => ({
    code: Number(readFileSync(join(dir, `${i}.code`), 'utf8')),
    stdout: readFileSync(join(dir, `${i}.out`), 'utf8'),
    stderr: readFileSync(join(dir, `${i}.err`), 'utf8'),
  }));
}

/** One mailroom process with no D-Bus session to reach (an address that leads nowhere). */
function noBus(args: string[], input?: string, extra: Record<string, string> = {}): Promise<Step> {
  return exec(process.execPath, [BIN, ...args], isolatedEnv({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(home, 'no-bus')}`, ...extra }), input);
}

const stored = () => JSON.parse(readFileSync(file(), 'utf8')).profiles as Record<string, Record<string, unknown>>;

describe.skipIf(missing.length > 0)(`the Secret Service (gnome-keyring on a private D-Bus)${missing.length > 0 ? ' (skipped: not installed)' : ''}`, () => {
  it('login keeps the key there; the file holds only where it is; another process and another program read it; logout removes it', async () => {
    const [login, check, lookup, doctor, logout, gone] = await inSession([
      { cmd: 'mailroom', args: ['login', '--api-key-stdin', '--secure-storage', 'required', '-q'], input: sandbox.apiKey },
      { cmd: 'mailroom', args: ['check', '--json'] },
      { cmd: 'secret-tool', args: ['lookup', 'service', 'mailroom-cli', 'username', account('default')] },
      { cmd: 'mailroom', args: ['doctor', '--json'] },
      { cmd: 'mailroom', args: ['logout', '--json'] },
      { cmd: 'secret-tool', args: ['lookup', 'service', 'mailroom-cli', 'username', account('default')] },
    ]) as Step[];
    expect(login).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(check?.code, check?.stderr).toBe(0);
    expect(JSON.parse(check?.stdout ?? '')).toMatchObject({ status: 'SUCCEED', keySource: 'profile', keyOrigin: 'profile default' });
    expect(lookup).toEqual({ code: 0, stdout: sandbox.apiKey, stderr: '' });
    const storage = JSON.parse(doctor?.stdout ?? '').checks.find((c: { name: string }) => c.name === 'key storage');
    expect(storage).toEqual({ name: 'key storage', status: 'ok', detail: 'system keychain available, secure-storage auto (default); default: system keychain' });
    expect(JSON.parse(logout?.stdout ?? '')).toEqual({ profile: 'default', removed: true, from: 'keychain' });
    expect(gone?.stdout).toBe('');
    expect(gone?.code).not.toBe(0);
    expect(readFileSync(file(), 'utf8')).not.toContain(sandbox.apiKey);
    expect(stored().default).toEqual({ baseUrl: sandbox.baseUrl });
  });

  it('a key kept in the file keeps working, and login --migrate moves it', async () => {
    mkdirSync(configDir(), { recursive: true, mode: 0o700 });
    writeFileSync(file(), JSON.stringify({ profiles: { default: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl }, ci: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl } } }), { mode: 0o600 });
    const [before, migrate, lookup, after] = await inSession([
      { cmd: 'mailroom', args: ['check', '-q', '--profile', 'ci'] },
      { cmd: 'mailroom', args: ['login', '--migrate', '--json'] },
      { cmd: 'secret-tool', args: ['lookup', 'service', 'mailroom-cli', 'username', account('ci')] },
      { cmd: 'mailroom', args: ['check', '-q', '--profile', 'ci'] },
    ]) as Step[];
    expect(before).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(JSON.parse(migrate?.stdout ?? '')).toEqual({ moved: ['default', 'ci'], configFile: file() });
    expect(lookup?.stdout).toBe(sandbox.apiKey);
    expect(after).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(file(), 'utf8')).not.toContain(sandbox.apiKey);
  });
});

describe('no D-Bus session', () => {
  it('auto: the key goes to the file (0600) with one warning, and works from there', async () => {
    const login = await noBus(['login', '--api-key-stdin', '-q'], sandbox.apiKey);
    expect(login.code).toBe(0);
    expect(login.stdout).toBe('');
    expect(login.stderr).toMatch(new RegExp(`^mailroom: warning: no system keychain here \\([^\\n]+\\): the key is saved in ${file().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, readable only by you \\(secure-storage required refuses instead\\)\\n$`));
    expect(stored().default).toEqual({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl });
    expect(statSync(file()).mode & 0o777).toBe(0o600);
    expect(await noBus(['check', '-q'])).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('required: refused before the key is checked, exit 2, nothing saved', async () => {
    const r = await noBus(['login', '--api-key-stdin'], sandbox.apiKey, { MAILROOM_SECURE_STORAGE: 'required' });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toMatch(/^mailroom: no system keychain to keep the key in \(.+\), and secure-storage is "required" \(MAILROOM_SECURE_STORAGE\): nothing was saved$/);
    expect(() => statSync(file())).toThrow();
  });

  it('a profile whose key is in the keychain: exit 3 saying so; MAILROOM_API_KEY still works', async () => {
    mkdirSync(configDir(), { recursive: true, mode: 0o700 });
    writeFileSync(file(), JSON.stringify({ profiles: { default: { baseUrl: sandbox.baseUrl, keychain: { service: 'mailroom-cli', account: account('default') } } } }), { mode: 0o600 });
    const r = await noBus(['check']);
    expect(r.code).toBe(3);
    expect(r.stderr.split('\n')[0]).toMatch(/^mailroom: the key of profile default is in the system keychain, which cannot be reached here \(.+\)$/);
    expect(await noBus(['check', '-q'], undefined, { MAILROOM_API_KEY: sandbox.apiKey })).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});
