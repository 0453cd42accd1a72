import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authHint, requireApiKey, resolveSettings } from '../../src/config/settings.js';
import { commandContext } from '../../src/commands/context.js';
import { openStore } from '../../src/config/store.js';
import { normalizeBaseUrl } from '../../src/config/url.js';
import { isMailroomError } from '../../src/errors.js';
import { exitCodeOf } from '../../src/exit-codes.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mailroom-settings-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const store = (profiles: object) => writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles }));

describe('resolveSettings precedence and provenance', () => {
  it('falls back to defaults with nothing configured', () => {
    const s = resolveSettings({ env: { MAILROOM_CONFIG_DIR: dir } }, {});
    expect(s.profile).toEqual({ value: 'default', source: 'default', origin: 'default' });
    expect(s.apiKey).toBeUndefined();
    expect(s.baseUrl).toEqual({ value: 'https://api.smashsend.com', source: 'default', origin: 'default' });
    expect(s.timeoutMs.value).toBe(30_000);
    expect(s.maxRetries.value).toBe(3);
    expect(s.configFile).toBe(join(dir, 'config.json'));
  });

  it('takes the profile, then env over it, then the flag over both', () => {
    store({ default: { apiKey: 'sk_live_profileprofile1', baseUrl: 'https://profile.test', workspace: 'wrk_p' } });
    const env = { MAILROOM_CONFIG_DIR: dir };
    expect(resolveSettings({ env }, {}).apiKey).toEqual({ value: 'sk_live_profileprofile1', source: 'profile', origin: 'profile default' });

    const withEnv = { ...env, MAILROOM_API_KEY: 'sk_live_envenvenvenv1', MAILROOM_BASE_URL: 'http://127.0.0.1:9/v1/', MAILROOM_WORKSPACE: 'wrk_e' };
    const s = resolveSettings({ env: withEnv }, {});
    expect(s.apiKey).toEqual({ value: 'sk_live_envenvenvenv1', source: 'env', origin: 'MAILROOM_API_KEY' });
    expect(s.baseUrl).toEqual({ value: 'http://127.0.0.1:9', source: 'env', origin: 'MAILROOM_BASE_URL' });
    expect(s.workspace).toEqual({ value: 'wrk_e', source: 'env', origin: 'MAILROOM_WORKSPACE' });

    const f = resolveSettings({ env: withEnv }, { apiKey: 'sk_live_flagflagflag1', baseUrl: 'https://flag.test', workspace: 'wrk_f', timeout: 5, maxRetries: 0 });
    expect(f.apiKey).toEqual({ value: 'sk_live_flagflagflag1', source: 'flag', origin: '--api-key' });
    expect(f.baseUrl).toEqual({ value: 'https://flag.test', source: 'flag', origin: '--base-url' });
    expect(f.workspace?.source).toBe('flag');
    expect(f.timeoutMs).toEqual({ value: 5, source: 'flag', origin: '--timeout' });
    expect(f.maxRetries).toEqual({ value: 0, source: 'flag', origin: '--max-retries' });
  });

  it('reads SMASHSEND_API_KEY only when MAILROOM_API_KEY is absent or empty', () => {
    const env = { MAILROOM_CONFIG_DIR: dir, SMASHSEND_API_KEY: 'sk_live_smashsmash1' };
    expect(resolveSettings({ env }, {}).apiKey?.origin).toBe('SMASHSEND_API_KEY');
    expect(resolveSettings({ env: { ...env, MAILROOM_API_KEY: '' } }, {}).apiKey?.origin).toBe('SMASHSEND_API_KEY');
    expect(resolveSettings({ env: { ...env, MAILROOM_API_KEY: 'sk_live_mm' } }, {}).apiKey?.origin).toBe('MAILROOM_API_KEY');
  });

  it('selects the profile by flag over MAILROOM_PROFILE', () => {
    store({ work: { apiKey: 'sk_live_work' }, home: { apiKey: 'sk_live_home' } });
    const env = { MAILROOM_CONFIG_DIR: dir, MAILROOM_PROFILE: 'home' };
    const byEnv = resolveSettings({ env }, {});
    expect(byEnv.profile).toEqual({ value: 'home', source: 'env', origin: 'MAILROOM_PROFILE' });
    expect(byEnv.apiKey).toEqual({ value: 'sk_live_home', source: 'profile', origin: 'profile home' });
    const byFlag = resolveSettings({ env }, { profile: 'work' });
    expect(byFlag.apiKey?.value).toBe('sk_live_work');
    expect(byFlag.profileExists).toBe(true);
    expect(resolveSettings({ env }, { profile: 'nope' }).profileExists).toBe(false);
  });

  it('lets --sandbox override key, base URL and workspace with provenance "sandbox"', () => {
    const sandbox = { baseUrl: 'http://127.0.0.1:5555', apiKey: 'sk_live_sandboxsandbox', workspaceId: 'wrk_sb', close: async () => undefined };
    const s = resolveSettings({ env: { MAILROOM_CONFIG_DIR: dir, MAILROOM_API_KEY: 'sk_live_env' }, sandbox }, { sandbox: true });
    expect(s.apiKey).toEqual({ value: 'sk_live_sandboxsandbox', source: 'sandbox', origin: '--sandbox' });
    expect(s.baseUrl.value).toBe('http://127.0.0.1:5555');
    expect(s.workspace?.value).toBe('wrk_sb');
  });

  it('turns verbose on with MAILROOM_DEBUG=1', () => {
    expect(resolveSettings({ env: { MAILROOM_CONFIG_DIR: dir, MAILROOM_DEBUG: '1' } }, {}).verbose).toBe(true);
    expect(resolveSettings({ env: { MAILROOM_CONFIG_DIR: dir } }, {}).verbose).toBe(false);
  });

  it('reports a corrupt store as a usage error naming the file', () => {
    writeFileSync(join(dir, 'config.json'), '{oops');
    const err = (() => {
      try {
        resolveSettings({ env: { MAILROOM_CONFIG_DIR: dir } }, {});
      } catch (e) {
        return e;
      }
    })();
    expect(isMailroomError(err) && exitCodeOf(err)).toBe(2);
    expect((err as Error).message).toBe(`config file ${join(dir, 'config.json')} is not valid JSON`);
  });
});

describe('missing credentials and hints', () => {
  it('requires a key with exit 3 and says how to log in to that profile', () => {
    const s = resolveSettings({ env: { MAILROOM_CONFIG_DIR: dir } }, { profile: 'ci' });
    const err = (() => {
      try {
        requireApiKey(s);
      } catch (e) {
        return e;
      }
    })();
    expect(isMailroomError(err) && exitCodeOf(err)).toBe(3);
    expect(isMailroomError(err) && err.hints[0]).toBe('run `mailroom login --profile ci`, or set MAILROOM_API_KEY, or pass --api-key');
    expect(isMailroomError(err) && err.hints[1]).toBe('no account yet? add --sandbox to try any command against a local API that sends nothing');
  });

  it('points a 401 at the source of the key and of the base URL', () => {
    store({ default: { apiKey: 'sk_live_x' } });
    const env = { MAILROOM_CONFIG_DIR: dir };
    const dflt = 'the base URL https://api.smashsend.com is the default';
    expect(authHint(resolveSettings({ env }, {}))).toBe(`run \`mailroom login\` to store a valid key; the key came from profile default, ${dflt}`);
    expect(authHint(resolveSettings({ env: { ...env, SMASHSEND_API_KEY: 'k' } }, {}))).toBe(`check SMASHSEND_API_KEY (it overrides the stored profile); the key came from environment (SMASHSEND_API_KEY), ${dflt}`);
    expect(authHint(resolveSettings({ env }, { apiKey: 'k' }))).toBe(`check the key given with --api-key; the key came from flag (--api-key), ${dflt}`);
  });

  it('a key from one place and a base URL from another: the 401 hint names both, not only `mailroom login`', () => {
    store({ slow: { apiKey: 'sk_live_x', baseUrl: 'https://api.smashsend.com' } });
    const env = { MAILROOM_CONFIG_DIR: dir, MAILROOM_BASE_URL: 'http://127.0.0.1:4025' };
    expect(authHint(resolveSettings({ env: { ...env, MAILROOM_PROFILE: 'slow' } }, {}))).toBe(
      'a key is valid only on the API that issued it: check MAILROOM_BASE_URL, or run `mailroom login --profile slow` to store a valid key; ' +
        'the key came from profile slow, the base URL http://127.0.0.1:4025 from environment (MAILROOM_BASE_URL)',
    );
    expect(authHint(resolveSettings({ env: { MAILROOM_CONFIG_DIR: dir } }, { profile: 'slow', baseUrl: 'http://127.0.0.1:4025' }))).toMatch(/^a key is valid only on the API that issued it: check --base-url, or run/);
  });
});

describe('an explicitly named profile must exist', () => {
  const ctx = (env: Record<string, string>) => ({ env: { MAILROOM_CONFIG_DIR: dir, ...env }, io: { err: { write: () => true } } }) as unknown as Parameters<typeof commandContext>[0];
  const connect = async (c: Parameters<typeof commandContext>[0], globals: Parameters<typeof commandContext>[1]) => commandContext(c, globals).api();
  const refusal = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      return isMailroomError(e) ? { code: exitCodeOf(e), message: e.message, hints: e.hints } : e;
    }
    return 'connected';
  };

  it('--profile or MAILROOM_PROFILE naming no stored profile: exit 2 listing the profiles, env credentials or not', async () => {
    store({ default: { apiKey: 'sk_live_defaultdefault1' }, work: { apiKey: 'sk_live_workworkwork1' } });
    const creds = { MAILROOM_API_KEY: 'sk_live_envenvenvenv1', MAILROOM_BASE_URL: 'http://127.0.0.1:9' };
    const expected = { code: 2, message: 'no profile "slow" in the config store (profiles: default, work)', hints: ['create it with `mailroom login --profile slow`, or pick one of the above'] };
    expect(await refusal(connect(ctx(creds), { profile: 'slow' }))).toEqual(expected);
    expect(await refusal(connect(ctx({ ...creds, MAILROOM_PROFILE: 'slow' }), {}))).toEqual(expected);
    expect(await refusal(connect(ctx({}), { profile: 'slow', apiKey: 'sk_live_flagflagflag1' }))).toEqual(expected);
  });

  it('with no store at all it says there are none', async () => {
    expect(await refusal(connect(ctx({ MAILROOM_API_KEY: 'sk_live_envenvenvenv1' }), { profile: 'ci' }))).toMatchObject({ code: 2, message: 'no profile "ci" in the config store (there are none yet)' });
  });
});

describe('empty flags are errors, not "unset"', () => {
  it.each([
    [{ baseUrl: '' }, '--base-url'],
    [{ apiKey: '' }, '--api-key'],
    [{ workspace: '' }, '--workspace'],
    [{ profile: '' }, '--profile'],
  ])('%o: exit 2', (globals, flag) => {
    try {
      resolveSettings({ env: { MAILROOM_CONFIG_DIR: dir, MAILROOM_API_KEY: 'sk_live_envenvenvenv1' } }, globals);
      expect.unreachable();
    } catch (e) {
      expect(isMailroomError(e) && { code: exitCodeOf(e), message: e.message }).toEqual({ code: 2, message: `${flag} must not be empty` });
    }
  });

  it('an empty MAILROOM_BASE_URL is unset, like every empty MAILROOM_* variable', () => {
    expect(resolveSettings({ env: { MAILROOM_CONFIG_DIR: dir, MAILROOM_BASE_URL: '' } }, {}).baseUrl.source).toBe('default');
  });
});

describe('normalizeBaseUrl', () => {
  it.each([
    ['localhost:39477', 'http://localhost:39477'],
    ['127.0.0.1:8025/v1', 'http://127.0.0.1:8025/v1'],
    ['api.smashsend.com', 'https://api.smashsend.com'],
  ])('%s without a scheme: exit 2 suggesting %s', (input, suggestion) => {
    try {
      normalizeBaseUrl(input);
      expect.unreachable();
    } catch (e) {
      expect(isMailroomError(e) && { code: exitCodeOf(e), message: e.message }).toEqual({ code: 2, message: `--base-url: "${input}" has no scheme: did you mean ${suggestion}?` });
    }
  });

  it.each([
    ['https://api.smashsend.com', 'https://api.smashsend.com'],
    ['https://api.smashsend.com/', 'https://api.smashsend.com'],
    ['https://api.smashsend.com/v1', 'https://api.smashsend.com'],
    ['https://api.smashsend.com/v1/', 'https://api.smashsend.com'],
    ['http://127.0.0.1:8025/prefix/v1', 'http://127.0.0.1:8025/prefix'],
    [' HTTPS://API.Example.com:443/ ', 'https://api.example.com'],
  ])('%s → %s', (input, out) => {
    expect(normalizeBaseUrl(input)).toBe(out);
  });

  it.each(['api.smashsend.com', 'ftp://x.test', 'not a url', 'https://u:p@x.test', 'https://x.test/?a=1'])('rejects %s with exit 2', (input) => {
    try {
      normalizeBaseUrl(input, 'MAILROOM_BASE_URL');
      expect.unreachable();
    } catch (e) {
      expect(isMailroomError(e) && exitCodeOf(e)).toBe(2);
      expect((e as Error).message).toMatch(/^MAILROOM_BASE_URL: /);
    }
  });
});

describe('config store', () => {
  it('writes profiles to a 0600 file in a 0700 directory and reads them back', async () => {
    const sub = join(dir, 'nested');
    const s = await openStore({ MAILROOM_CONFIG_DIR: sub });
    s.updateProfile('default', { apiKey: 'sk_live_abcdefghijklmnop', workspace: 'wrk_1' });
    s.updateProfile('work', { baseUrl: 'http://127.0.0.1:1' });
    s.updateProfile('default', { workspace: undefined });
    expect(s.path).toBe(join(sub, 'config.json'));
    expect(statSync(s.path).mode & 0o777).toBe(0o600);
    expect(statSync(sub).mode & 0o777).toBe(0o700);
    expect(s.read()).toEqual({ profiles: { default: { apiKey: 'sk_live_abcdefghijklmnop' }, work: { baseUrl: 'http://127.0.0.1:1' } } });
    expect(resolveSettings({ env: { MAILROOM_CONFIG_DIR: sub } }, {}).apiKey?.value).toBe('sk_live_abcdefghijklmnop');
    expect(s.deleteProfile('work')).toBe(true);
    expect(s.deleteProfile('work')).toBe(false);
    expect(Object.keys(s.read().profiles)).toEqual(['default']);
  });

  it('tightens an existing world-readable store to 0600 on the next write', async () => {
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ profiles: {} }), { mode: 0o644 });
    const s = await openStore({ MAILROOM_CONFIG_DIR: dir });
    s.updateProfile('default', { apiKey: 'sk_live_abcdefghijklmnop' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
