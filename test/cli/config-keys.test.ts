import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/context.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';

// One list of keys: every key `config get` shows can be set and unset in a profile, but `profile`,
// which chooses the profile. One rule for a profile named on purpose: it must exist, except where
// it is being created (config set, login).
let sandbox: TestSandbox;
let dir: string;
beforeAll(async () => {
  sandbox = await withSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => {
  dir = tempConfigDir();
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { ci: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl } } }), { mode: 0o600 });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const stored = () => (JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: Record<string, Record<string, unknown>> }).profiles;

describe('config: one list of keys', () => {
  it('timeout and max-retries, listed by config get, can be set, are used, and unset', async () => {
    for (const [key, value] of [['timeout', '5000'], ['max-retries', '0']]) {
      const r = await runInProcess(['config', 'set', key as string, value as string, '--profile', 'ci'], { configDir: dir });
      expect(r).toMatchObject({ code: 0, stderr: '' });
    }
    expect(stored().ci).toEqual({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl, timeout: 5000, maxRetries: 0 });
    const got = await runInProcess(['config', 'get', 'timeout', '--profile', 'ci', '--json'], { configDir: dir });
    expect(JSON.parse(got.stdout)).toEqual({ key: 'timeout', value: 5000, source: 'profile', origin: 'profile ci' });
    // The transport runs with them; a flag still wins.
    const v = await runInProcess(['check', '-q', '-v', '--profile', 'ci'], { configDir: dir });
    expect(v.code).toBe(0);
    expect(v.stderr).toContain('; timeout 5000 ms (profile ci); max retries 0 (profile ci)\n');
    const flag = await runInProcess(['config', 'get', 'timeout', '--profile', 'ci', '--timeout', '7'], { configDir: dir });
    expect(flag.stdout).toBe('7\n');
    const un = await runInProcess(['config', 'unset', 'timeout', '--profile', 'ci'], { configDir: dir });
    expect(un.code).toBe(0);
    expect(stored().ci).toEqual({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl, maxRetries: 0 });
  });

  it.each([
    [['config', 'set', 'timeout', '0'], 'mailroom: timeout must be between 1 and 9007199254740991'],
    [['config', 'set', 'timeout', 'soon'], 'mailroom: timeout must be a whole number'],
    [['config', 'set', 'max-retries', '21'], 'mailroom: max-retries must be between 0 and 20'],
    [['config', 'set', 'profile', 'prod'], 'mailroom: profile is not stored in a profile: choose it with --profile or MAILROOM_PROFILE'],
    [['config', 'unset', 'profile'], 'mailroom: profile is not stored in a profile: choose it with --profile or MAILROOM_PROFILE'],
    [['config', 'set', 'colour', 'blue'], 'mailroom: unknown config key "colour": expected one of api-key, base-url, workspace, profile, timeout, max-retries, secure-storage'],
  ])('%j: exit 2, one line, store untouched', async (args, line) => {
    const before = readFileSync(join(dir, 'config.json'), 'utf8');
    const r = await runInProcess(args, { configDir: dir });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(line);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
  });

  it('a stored timeout that is not a whole number in range is not used', async () => {
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { ci: { timeout: -5, maxRetries: 'many' } } }), { mode: 0o600 });
    const r = await runInProcess(['config', 'list', '--profile', 'ci', '--json'], { configDir: dir });
    const rows = (JSON.parse(r.stdout) as { items: { key: string; value: unknown; source: string }[] }).items;
    expect(rows.find((row) => row.key === 'timeout')).toMatchObject({ value: 30000, source: 'default' });
    expect(rows.find((row) => row.key === 'max-retries')).toMatchObject({ value: 3, source: 'default' });
  });
});

describe('config: a profile named on purpose that is not stored', () => {
  it.each([
    [['config', 'unset', 'api-key', '--profile', 'nope']],
    [['config', 'get', 'workspace', '--profile', 'nope']],
    [['config', 'list', '--profile', 'nope']],
  ])('%j: exit 2 naming the stored ones, as every other command, store untouched', async (args) => {
    const before = readFileSync(join(dir, 'config.json'), 'utf8');
    const r = await runInProcess(args, { configDir: dir });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('mailroom: no profile "nope" in the config store (profiles: ci)');
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
    const byEnv = await runInProcess(args.filter((a) => a !== '--profile' && a !== 'nope'), { configDir: dir, env: { MAILROOM_PROFILE: 'nope' } });
    expect(byEnv.code).toBe(2);
  });

  it('config set creates it, as login does', async () => {
    const r = await runInProcess(['config', 'set', 'workspace', 'wrk_new', '--profile', 'fresh'], { configDir: dir });
    expect(r.code).toBe(0);
    expect(stored().fresh).toEqual({ workspace: 'wrk_new' });
  });
});
