import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/context.js';
import { fallbackWarning } from '../helpers/keychain.js';

const KEY = 'sk_live_storedstoredstored9876';
let dir: string;
beforeEach(() => {
  dir = tempConfigDir();
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { apiKey: KEY, workspace: 'wrk_stored' }, ci: { baseUrl: 'http://127.0.0.1:4010' } } }), { mode: 0o600 });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const stored = () => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles;

describe('mailroom config list', () => {
  it('shows every effective value with its source (flag > env > profile > default), key masked', async () => {
    const r = await runInProcess(['config', 'list', '--timeout', '5000'], { configDir: dir, env: { MAILROOM_BASE_URL: 'https://staging.example.com/v1' } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).items).toEqual([
      { key: 'api-key', value: 'sk_live_…9876', source: 'profile', origin: 'profile default' },
      { key: 'base-url', value: 'https://staging.example.com', source: 'env', origin: 'MAILROOM_BASE_URL' },
      { key: 'workspace', value: 'wrk_stored', source: 'profile', origin: 'profile default' },
      { key: 'profile', value: 'default', source: 'default', origin: 'default' },
      { key: 'timeout', value: 5000, source: 'flag', origin: '--timeout' },
      { key: 'max-retries', value: 3, source: 'default', origin: 'default' },
      { key: 'secure-storage', value: 'auto', source: 'default', origin: 'default' },
    ]);
    expect(JSON.parse(r.stdout).hasMore).toBe(false);
    expect(r.stdout).not.toContain(KEY);
  });

  it('prints a table on a terminal', async () => {
    const r = await runInProcess(['config', 'list', '--profile', 'ci', '--no-color'], { configDir: dir, env: { SMASHSEND_API_KEY: 'sk_live_envenvenvenvenv1234' }, tty: 'stdout' });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').map((l) => l.trimEnd())).toEqual([
      'KEY             VALUE                  SOURCE',
      // --profile ci: its key (none) and base URL, never the environment's.
      'api-key         (not set)              -',
      'base-url        http://127.0.0.1:4010  profile ci',
      'workspace       (not set)              -',
      'profile         ci                     flag (--profile)',
      'timeout         30000                  default',
      'max-retries     3                      default',
      'secure-storage  auto                   default',
      '',
    ]);
  });
});

describe('mailroom config get|set|unset|path', () => {
  it('gets one value as plain text, or as JSON with its source', async () => {
    const plain = await runInProcess(['config', 'get', 'workspace'], { configDir: dir });
    expect(plain).toEqual({ stdout: 'wrk_stored\n', stderr: '', code: 0 });
    const key = await runInProcess(['config', 'get', 'api-key', '--json'], { configDir: dir });
    expect(JSON.parse(key.stdout)).toEqual({ key: 'api-key', value: 'sk_live_…9876', source: 'profile', origin: 'profile default' });
    const unset = await runInProcess(['config', 'get', 'workspace', '--profile', 'ci'], { configDir: dir });
    expect(unset).toEqual({ stdout: '', stderr: 'workspace is not set\n', code: 0 });
  });

  it('sets and unsets values in the chosen profile, normalising the base URL, keeping mode 0600', async () => {
    expect((await runInProcess(['config', 'set', 'base-url', 'https://api.example.com/v1/', '--profile', 'work'], { configDir: dir })).code).toBe(0);
    expect((await runInProcess(['config', 'set', 'workspace', 'wrk_work'], { configDir: dir, env: { MAILROOM_PROFILE: 'work' } })).code).toBe(0);
    const key = await runInProcess(['config', 'set', 'api-key', '-', '--profile', 'work'], { configDir: dir, input: 'sk_live_fromstdinfromstdin1\n' });
    expect(key).toEqual({ stdout: '', stderr: fallbackWarning(dir), code: 0 });
    expect(stored().work).toEqual({ baseUrl: 'https://api.example.com', workspace: 'wrk_work', apiKey: 'sk_live_fromstdinfromstdin1' });
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);

    const un = await runInProcess(['config', 'unset', 'workspace', '--profile', 'work'], { configDir: dir, tty: 'stdout' });
    expect(un.code).toBe(0);
    expect(un.stderr).toBe('Removed workspace from profile "work".\n');
    expect(stored().work).toEqual({ baseUrl: 'https://api.example.com', apiKey: 'sk_live_fromstdinfromstdin1' });
    expect(stored().default).toEqual({ apiKey: KEY, workspace: 'wrk_stored' });
  });

  it('warns when a stored value is shadowed by the environment', async () => {
    const r = await runInProcess(['config', 'set', 'workspace', 'wrk_new'], { configDir: dir, env: { MAILROOM_WORKSPACE: 'wrk_env' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('mailroom: note: MAILROOM_WORKSPACE overrides the stored workspace while it is set\n');
  });

  it.each([
    [['config', 'set', 'base-url', 'api.example.com'], 'mailroom: base-url: "api.example.com" has no scheme: did you mean https://api.example.com?'],
    [['config', 'set', 'workspace', 'ws_1'], 'mailroom: workspace: "ws_1" is not a workspace id (expected wrk_...)'],
    [['config', 'set', 'colour', 'blue'], 'mailroom: unknown config key "colour": expected one of api-key, base-url, workspace, profile, timeout, max-retries, secure-storage'],
    [['config', 'get', 'nope'], 'mailroom: unknown config key "nope": expected one of api-key, base-url, workspace, profile, timeout, max-retries, secure-storage'],
    [['config', 'set', 'api-key', 'two words'], 'mailroom: api-key: expected one key without spaces'],
    [['config', 'set', 'workspace', 'wrk_1', '--profile', 'bad name'], 'mailroom: profile name "bad name" may use letters, digits, "-" and "_" only'],
  ])('%j → exit 2, one line, store untouched', async (args, line) => {
    const before = readFileSync(join(dir, 'config.json'), 'utf8');
    const r = await runInProcess(args, { configDir: dir });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(line);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
  });

  it('prints where the store lives', async () => {
    expect(await runInProcess(['config', 'path'], { configDir: dir })).toEqual({ stdout: `${join(dir, 'config.json')}\n`, stderr: '', code: 0 });
  });

  it('reports a corrupt store in one line, exit 2', async () => {
    writeFileSync(join(dir, 'config.json'), '{"profiles": ');
    const r = await runInProcess(['config', 'list'], { configDir: dir });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`mailroom: config file ${join(dir, 'config.json')} is not valid JSON`);
  });
});

describe('mailroom completion', () => {
  // What each shell completes: test/e2e/completion.test.ts.
  it('rejects an unknown shell with exit 2', async () => {
    const r = await runInProcess(['completion', 'powershell']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("mailroom: command-argument value 'powershell' is invalid for argument 'shell'. shell must be one of bash, zsh, fish\n");
  });
});
