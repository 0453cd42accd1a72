import type { CommandContext } from './context.js';
import { MAX_RETRIES_RANGE, storedProfile, TIMEOUT_RANGE } from '../config/file.js';
import { removeKey, saveKey } from '../config/credentials.js';
import { configFile } from '../config/paths.js';
import { DEFAULT_PROFILE, describeSource, requireNamedProfile, secureStorageValue, storageMode, type Setting } from '../config/settings.js';
import { openStore, PROFILE_NAME } from '../config/store.js';
import { DEFAULT_BASE_URL, normalizeBaseUrl } from '../config/url.js';
import type { Globals } from '../context.js';
import { usageError } from '../errors.js';
import { didYouMean, matchChoice } from '../input/choice.js';
import { readSource } from '../input/sources.js';
import { stdinFor } from '../input/stdin.js';
import * as output from '../output/index.js';
import { hasPrefix } from '../schema/ids.js';
import { mask } from '../secrets.js';
import { ALL_KEYS, type Key, type StoredKey } from './shared/config-keys.js';
import { parseIntegerOption } from './shared/option-parsers.js';
import { notice } from '../output/notice.js';

export type ConfigOptions = { verb: 'list' } | { verb: 'get'; key: string } | { verb: 'set'; key: string; value: string } | { verb: 'unset'; key: string } | { verb: 'path' };

export interface ConfigEntry {
  key: Key;
  value: string | number | null;
  source: Setting<unknown>['source'] | null;
  origin: string | null;
}

export async function run(opts: ConfigOptions, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  if (opts.verb === 'list') return list(ctx, globals);
  if (opts.verb === 'get') return get(ctx, globals, opts.key);
  if (opts.verb === 'set') return set(ctx, opts.key, opts.value);
  if (opts.verb === 'unset') return unset(ctx, opts.key);
  return path(ctx, globals);
}

function asKey<K extends string>(key: string, allowed: readonly K[]): K {
  // Any case, and the camelCase of the JSON store (apiKey, maxRetries) too.
  const k = key.trim().replace(/([a-z])([A-Z])/g, '$1-$2');
  const found = matchChoice(k, allowed);
  if (found === undefined) throw usageError(`unknown config key "${key}"${didYouMean(k, allowed)}: expected one of ${allowed.join(', ')}`);
  return found;
}

function entries(ctx: CommandContext): ConfigEntry[] {
  const s = ctx.settings();
  const settingOf: Record<Key, Setting<string | number> | undefined> = {
    profile: s.profile,
    'api-key': s.apiKey && { ...s.apiKey, value: mask(s.apiKey.value), ...(s.apiKeyIn === 'keychain' ? { origin: `${s.apiKey.origin}, system keychain` } : {}) },
    'base-url': s.baseUrl,
    workspace: s.workspace,
    timeout: s.timeoutMs,
    'max-retries': s.maxRetries,
    'secure-storage': s.secureStorage,
  };
  return ALL_KEYS.map((key) => {
    const v = settingOf[key];
    return { key, value: v?.value ?? null, source: v?.source ?? null, origin: v?.origin ?? null };
  });
}

async function list(ctx: CommandContext, globals: Globals): Promise<void> {
  requireNamedProfile(ctx.settings());
  const rows = entries(ctx);
  await output.printRows(ctx, globals, rows, [
    { header: 'KEY', value: (r) => r.key },
    { header: 'VALUE', value: (r) => r.value ?? '(not set)', kind: 'text' },
    { header: 'SOURCE', value: (r) => (r.source && r.origin ? describeSource({ source: r.source, origin: r.origin }) : '') },
  ]);
}

async function get(ctx: CommandContext, globals: Globals, name: string): Promise<void> {
  const key = asKey(name, ALL_KEYS);
  requireNamedProfile(ctx.settings());
  const rows = entries(ctx);
  const entry = rows.find((r) => r.key === key) as ConfigEntry;
  // Plain when piped too, like `git config` and `gh config get`: `$(mailroom config get workspace)`.
  if (globals.quiet) return;
  if (globals.json) return output.printJson(ctx, entry);
  if (entry.value === null) ctx.io.err.write(`${key} is not set\n`);
  else ctx.io.out.write(`${entry.value}\n`);
}

/** The keys set and unset accept: every key but `profile`, which is not stored anywhere. */
function storedKey(name: string): StoredKey {
  const key = asKey(name, ALL_KEYS);
  if (key === 'profile') throw usageError('profile is not stored in a profile: choose it with --profile or MAILROOM_PROFILE');
  return key;
}

async function set(ctx: CommandContext, name: string, raw: string): Promise<void> {
  const key = storedKey(name);
  const value = await validated(ctx, key, raw);
  await write(ctx, key, value);
}

/** Unset, like every command but those that create a profile (set, login), refuses a named profile that is not stored. */
async function unset(ctx: CommandContext, name: string): Promise<void> {
  const key = storedKey(name);
  requireNamedProfile(ctx.settings());
  await write(ctx, key, undefined);
}

const FIELD = { 'api-key': 'apiKey', 'base-url': 'baseUrl', workspace: 'workspace', timeout: 'timeout', 'max-retries': 'maxRetries', 'secure-storage': 'secureStorage' } as const;

async function write(ctx: CommandContext, key: StoredKey, value: string | number | undefined): Promise<void> {
  const { globals } = ctx;
  const settings = ctx.settings();
  const profile = settings.profile.value;
  if (!PROFILE_NAME.test(profile)) throw usageError(`profile name "${profile}" may use letters, digits, "-" and "_" only`);
  const store = await openStore(ctx.env);
  const before = storedProfile(store.read(), profile);
  let had = before?.[FIELD[key]] !== undefined;
  const warn = (line: string) => void ctx.io.err.write(`${line}\n`);
  // The key goes where every saved key goes (the keychain, else the file), and leaves from wherever it is.
  if (key === 'api-key' && typeof value === 'string') saveKey(ctx, store, profile, value, storageMode(ctx.env, before, `profile ${profile}`, settings.profile.source === 'flag'), {}, warn);
  else if (key === 'api-key') had = removeKey(ctx, store, profile).removed;
  else store.updateProfile(profile, { [FIELD[key]]: value });
  if (!globals.quiet && ctx.io.isStdoutTTY) {
    ctx.io.err.write(value === undefined ? (had ? `Removed ${key} from profile "${profile}".\n` : `${key} was not set in profile "${profile}".\n`) : `Saved ${key} in profile "${profile}".\n`);
  }
  if (key === 'api-key' && value !== undefined && !globals.quiet) {
    // Unlike login, nothing checked this key on any host: say which one a new shell will send it to.
    const storedBase = storedProfile(store.read(), profile)?.baseUrl;
    const target = storedBase ?? DEFAULT_BASE_URL;
    if (target !== settings.baseUrl.value) {
      const flag = profile === DEFAULT_PROFILE ? '' : ` --profile ${profile}`;
      notice(
        ctx.io.err,
        'note',
        `the key is stored for ${target} (${storedBase ? `the base URL of profile ${profile}` : 'the default'}), not ${settings.baseUrl.value} (${describeSource(settings.baseUrl)}): ` +
          `\`mailroom config set base-url ${settings.baseUrl.value}${flag}\` stores it for that host (\`mailroom login\` checks a key and saves it with its host)`,
      );
    }
  }
  // A stored value under a flag or variable has no effect yet: say so instead of leaving users puzzled.
  const shadow = ({ 'api-key': settings.apiKey, 'base-url': settings.baseUrl, workspace: settings.workspace, timeout: settings.timeoutMs, 'max-retries': settings.maxRetries, 'secure-storage': settings.secureStorage } as const)[key];
  if (value !== undefined && shadow && (shadow.source === 'env' || shadow.source === 'flag')) {
    notice(ctx.io.err, 'note', `${shadow.origin} overrides the stored ${key} while it is set`);
  }
}

async function validated(ctx: CommandContext, key: StoredKey, raw: string): Promise<string | number> {
  // The same rules, and words, as the flags.
  if (key === 'timeout') return integer(raw, 'timeout', TIMEOUT_RANGE);
  if (key === 'max-retries') return integer(raw, 'max-retries', MAX_RETRIES_RANGE);
  if (key === 'base-url') {
    return normalizeBaseUrl(raw, 'base-url');
  }
  if (key === 'workspace') {
    if (!hasPrefix('workspace', raw)) throw usageError(`workspace: "${raw}" is not a workspace id (expected wrk_...)`);
    return raw;
  }
  if (key === 'secure-storage') return secureStorageValue(raw, 'secure-storage');
  let secret = raw;
  if (raw === '-') {
    secret = (await readSource('-', 'api-key', ctx.cwd, stdinFor(ctx, 'the API key'))).trim();
  }
  if (!secret || /\s/.test(secret)) throw usageError('api-key: expected one key without spaces');
  return secret;
}

function integer(raw: string, name: string, [min, max]: readonly [number, number]): number {
  try {
    return parseIntegerOption(name, min, max)(raw);
  } catch (err) {
    throw usageError((err as Error).message);
  }
}

async function path(ctx: CommandContext, globals: Globals): Promise<void> {
  const file = configFile(ctx.env);
  if (globals.json) output.printJson(ctx, { path: file });
  else ctx.io.out.write(`${file}\n`);
}
