import type { Context, Globals } from '../context.js';
import { fromEnvironment, SETTING_VARIABLES } from './environment.js';
import { isMailroomError, MailroomError, usageError } from '../errors.js';
import { readStoredConfig, SECURE_STORAGE, storedProfile, type SecureStorage, type StoredProfile } from './file.js';
import { readKey } from './keychain.js';
import { configFile } from './paths.js';
import { DEFAULT_BASE_URL, normalizeBaseUrl } from './url.js';
import { apiKeyProblem, holdSecret, mask as maskKey } from '../secrets.js';
import { readSecretFile } from '../input/secret-file.js';

export type Source = 'flag' | 'env' | 'profile' | 'sandbox' | 'default';

/** A value and where it came from, for `config list`, `check` and the hint after a 401. */
export interface Setting<T> {
  value: T;
  source: Source;
  /** The flag, variable or profile it came from: `--api-key`, `SMASHSEND_API_KEY`, `profile work`. */
  origin: string;
}

export interface Settings {
  profile: Setting<string>;
  /** Whether the chosen profile exists in the store. */
  profileExists: boolean;
  /** The names of the profiles in the store. */
  storedProfiles: string[];
  apiKey: Setting<string> | undefined;
  /** Where the profile's key is kept, when the key in use is the profile's. */
  apiKeyIn?: 'keychain' | 'file';
  /** Why the profile's key could not be had (a directory others can write to, a keychain out of reach), when so. */
  apiKeyRefused?: { message: string; hints: string[] };
  /** Where keys saved to this profile go (credentials.ts). */
  secureStorage: Setting<SecureStorage>;
  baseUrl: Setting<string>;
  workspace: Setting<string> | undefined;
  timeoutMs: Setting<number>;
  maxRetries: Setting<number>;
  verbose: boolean;
  configFile: string;
  /** The environment variable holding a key (used or, under --profile, set aside), if any. */
  keyVariable?: string;
  /** A key variable set to nothing (a CI secret the job cannot read), when no variable holds a key. */
  emptyKeyVariable?: string;
  /** Under --profile, the environment's other key or base URL left unused: one warning before a request. */
  setAside?: string;
}

export const DEFAULT_PROFILE = 'default';
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 3;

type Env = Readonly<Record<string, string | undefined>>;
const fromEnv = (env: Env, name: string) => (env[name] ? env[name] : undefined);

/**
 * flag > --profile's stored value > environment > the profile of MAILROOM_PROFILE or `default` >
 * default, for every setting (docs/configuration.md, "Where each setting comes from").
 */
export function resolveSettings(ctx: Pick<Context, 'env' | 'sandbox' | 'keychain'> & { cwd?: string; io?: Pick<Context['io'], 'err'> }, globals: Globals): Settings {
  const { env } = ctx;
  // An empty flag is a mistake (an unset shell variable: `--api-key "$KEY"`), never "use the next
  // source"; an empty MAILROOM_* variable is unset, as in most tools (docs/configuration.md).
  const flags = [['profile', '--profile'], ['apiKey', '--api-key'], ['baseUrl', '--base-url'], ['workspace', '--workspace']] as const;
  for (const [key, flag] of flags) if (globals[key] === '') throw usageError(`${flag} must not be empty`);
  const file = configFile(env);
  const profile: Setting<string> = globals.profile
    ? { value: globals.profile, source: 'flag', origin: '--profile' }
    : fromEnv(env, 'MAILROOM_PROFILE')
      ? { value: env.MAILROOM_PROFILE as string, source: 'env', origin: 'MAILROOM_PROFILE' }
      : { value: DEFAULT_PROFILE, source: 'default', origin: 'default' };
  const store = readStoredConfig(file, ctx.io ? (line) => void ctx.io?.err.write(`${line}\n`) : undefined);
  const stored: StoredProfile | undefined = storedProfile(store, profile.value);
  const inProfile = `profile ${profile.value}`;

  // A profile named with --profile is a choice typed on this command line: its key and base URL beat
  // the environment's, which is not even consulted for them (as the AWS CLI's --profile beats
  // environment credentials). MAILROOM_PROFILE and the default profile come after the environment.
  const chosen = profile.source === 'flag';
  const pick = (flag: string | undefined, flagName: string, setting: keyof typeof SETTING_VARIABLES, storedValue: string | undefined, credential = false): Setting<string> | undefined => {
    if (flag !== undefined && flag !== '') return { value: flag, source: 'flag', origin: flagName };
    const fromProfile = storedValue ? { value: storedValue, source: 'profile' as const, origin: inProfile } : undefined;
    if (chosen && (credential || fromProfile)) return fromProfile;
    const variable = fromEnvironment(env, setting);
    return variable ? { value: variable.value, source: 'env', origin: variable.name } : fromProfile;
  };

  if (globals.apiKey !== undefined && globals.apiKeyFile !== undefined) throw usageError('use --api-key or --api-key-file, not both');
  let apiKey =
    globals.apiKeyFile !== undefined
      ? { value: readSecretFile(globals.apiKeyFile, '--api-key-file', ctx.cwd ?? process.cwd()), source: 'flag' as const, origin: '--api-key-file' }
      : pick(globals.apiKey, '--api-key', 'apiKey', stored?.apiKey ?? (stored?.keychain ? IN_KEYCHAIN : undefined), true);
  // A key typed on this command line that cannot be one is a mistake to name, never a request to send.
  const keyProblem = apiKey?.source === 'flag' ? apiKeyProblem(apiKey.value) : undefined;
  if (apiKey && keyProblem) throw usageError(`${apiKey.origin}: ${keyProblem}`);
  let apiKeyRefused: Settings['apiKeyRefused'];
  const apiKeyIn = apiKey?.source === 'profile' ? (stored?.keychain && stored.apiKey === undefined ? 'keychain' : 'file') : undefined;
  if (apiKey?.source === 'profile' && store.keysRefused) {
    const dir = file.replace(/[\\/][^\\/]*$/, '');
    apiKeyRefused = { message: `refusing the API key stored in ${file}: ${store.keysRefused}`, hints: [`make it yours alone (chmod 700 ${dir}), or pass the key with MAILROOM_API_KEY`] };
  } else if (apiKey && apiKeyIn === 'keychain' && stored?.keychain && !(globals.sandbox && ctx.sandbox)) {
    // Only now, with the profile's key the one in use, is the keychain (and its native module) reached.
    try {
      apiKey = { ...apiKey, value: readKey(ctx, profile.value, stored.keychain) };
    } catch (err) {
      if (!isMailroomError(err)) throw err;
      apiKeyRefused = { message: err.message, hints: err.hints };
    }
  }
  if (apiKeyRefused) apiKey = undefined;
  const rawBase = pick(globals.baseUrl, '--base-url', 'baseUrl', stored?.baseUrl, true);
  let baseUrl: Setting<string> = rawBase
    ? { ...rawBase, value: normalizeBaseUrl(rawBase.value, rawBase.origin) }
    : { value: DEFAULT_BASE_URL, source: 'default', origin: 'default' };
  let workspace = pick(globals.workspace, '--workspace', 'workspace', stored?.workspace);

  // `--sandbox` means "this one command talks to a throw-away local API": it wins over everything.
  const sandbox = globals.sandbox ? ctx.sandbox : undefined;
  if (sandbox) {
    apiKey = { value: sandbox.apiKey, source: 'sandbox', origin: '--sandbox' };
    baseUrl = { value: sandbox.baseUrl, source: 'sandbox', origin: '--sandbox' };
    workspace = { value: sandbox.workspaceId, source: 'sandbox', origin: '--sandbox' };
  }

  // No variable for these: the flag, the profile, the default.
  const number = (flag: number | undefined, flagName: string, storedValue: number | undefined, fallback: number): Setting<number> =>
    flag !== undefined
      ? { value: flag, source: 'flag', origin: flagName }
      : storedValue !== undefined
        ? { value: storedValue, source: 'profile', origin: inProfile }
        : { value: fallback, source: 'default', origin: 'default' };

  holdSecret(apiKey?.value);
  const secureStorage = storageMode(env, stored, inProfile, chosen);
  const aside = chosen && stored !== undefined && apiKey && !sandbox ? setAside(env, apiKey, baseUrl) : undefined;
  return {
    profile,
    profileExists: stored !== undefined,
    storedProfiles: Object.keys(store.profiles),
    apiKey,
    ...(apiKey && apiKeyIn ? { apiKeyIn } : {}),
    ...(apiKeyRefused ? { apiKeyRefused } : {}),
    secureStorage,
    baseUrl,
    workspace,
    timeoutMs: number(globals.timeout, '--timeout', stored?.timeout, DEFAULT_TIMEOUT_MS),
    maxRetries: number(globals.maxRetries, '--max-retries', stored?.maxRetries, DEFAULT_MAX_RETRIES),
    verbose: Boolean(globals.verbose) || env.MAILROOM_DEBUG === '1',
    configFile: file,
    ...(keyVariable(env) ? { keyVariable: keyVariable(env) } : {}),
    ...(!keyVariable(env) && emptyKeyVariable(env) ? { emptyKeyVariable: emptyKeyVariable(env) } : {}),
    ...(aside ? { setAside: `--profile ${profile.value} wins over the environment: ${aside}` } : {}),
  };
}

/** Stands for the profile's key while it is still in the keychain: replaced by it, or by a refusal, before anyone sees it. */
const IN_KEYCHAIN = '\0keychain';

/**
 * Where keys saved to a profile go: `--secure-storage` (login's flag, `flag`), then as every
 * setting: --profile's stored value > MAILROOM_SECURE_STORAGE > the profile's > `auto`. A bad value
 * in the variable is refused, never taken for the default: `required` misspelt must not fail open.
 */
export function storageMode(env: Env, stored: StoredProfile | undefined, inProfile: string, chosen: boolean, flag?: string): Setting<SecureStorage> {
  if (flag !== undefined) return { value: secureStorageValue(flag, '--secure-storage'), source: 'flag', origin: '--secure-storage' };
  const fromProfile = stored?.secureStorage ? { value: stored.secureStorage, source: 'profile' as const, origin: inProfile } : undefined;
  if (chosen && fromProfile) return fromProfile;
  const v = fromEnv(env, 'MAILROOM_SECURE_STORAGE');
  if (v !== undefined) return { value: secureStorageValue(v, 'MAILROOM_SECURE_STORAGE'), source: 'env', origin: 'MAILROOM_SECURE_STORAGE' };
  return fromProfile ?? { value: 'auto', source: 'default', origin: 'default' };
}

export function secureStorageValue(raw: string, name: string): SecureStorage {
  const v = raw.trim().toLowerCase();
  if ((SECURE_STORAGE as readonly string[]).includes(v)) return v as SecureStorage;
  throw usageError(`${name}: "${raw}" is not one of ${SECURE_STORAGE.join(', ')}`);
}

/** The variables that hold an API key, the first set one wins. */
export const KEY_VARIABLES: readonly string[] = SETTING_VARIABLES.apiKey;

/** The set key variable, if any. */
export const keyVariable = (env: Env): string | undefined => KEY_VARIABLES.find((name) => fromEnv(env, name) !== undefined);
const emptyKeyVariable = (env: Env): string | undefined => KEY_VARIABLES.find((name) => env[name] === '');

/**
 * Under --profile, what the environment held that was not used, when it differs from what is
 * used (`its key and base URL are used, not MAILROOM_API_KEY and MAILROOM_BASE_URL`); undefined
 * when nothing differs. A flag that beat both is no news.
 */
function setAside(env: Env, apiKey: Setting<string> | undefined, baseUrl: Setting<string>): string | undefined {
  const keyVar = apiKey?.source === 'flag' ? undefined : keyVariable(env);
  const otherKey = keyVar !== undefined && env[keyVar] !== apiKey?.value ? keyVar : undefined;
  const envBase = baseUrl.source === 'flag' ? undefined : fromEnv(env, 'MAILROOM_BASE_URL');
  let otherBase: string | undefined;
  if (envBase !== undefined) {
    try {
      if (normalizeBaseUrl(envBase, 'MAILROOM_BASE_URL') !== baseUrl.value) otherBase = 'MAILROOM_BASE_URL';
    } catch {
      otherBase = 'MAILROOM_BASE_URL';
    }
  }
  const used = [otherKey && 'key', otherBase && (baseUrl.source === 'default' ? 'the default base URL' : 'base URL')].filter(Boolean);
  if (used.length === 0) return undefined;
  const names = [otherKey, otherBase].filter(Boolean);
  return `its ${used.join(' and ')} ${used.length > 1 ? 'are' : 'is'} used, not ${names.join(' and ')}`;
}

/** `environment (MAILROOM_API_KEY)`, `flag (--api-key)`, `profile work`, `sandbox`, `default`. */
export function describeSource(setting: Pick<Setting<unknown>, 'source' | 'origin'>): string {
  if (setting.source === 'env') return `environment (${setting.origin})`;
  if (setting.source === 'flag') return `flag (${setting.origin})`;
  if (setting.source === 'profile') return setting.origin;
  return setting.source;
}

/**
 * One line naming every value a request is made with and where it came from (`--verbose`); the key
 * masked to its last four characters.
 */
export function settingsLine(s: Settings): string {
  const key = s.apiKey ? `key ${maskKey(s.apiKey.value)} (${describeSource(s.apiKey)})` : 'key none';
  const ws = s.workspace ? `workspace ${s.workspace.value} (${describeSource(s.workspace)})` : 'workspace none';
  return [
    `profile ${s.profile.value} (${describeSource(s.profile)})`,
    key,
    `base URL ${s.baseUrl.value} (${describeSource(s.baseUrl)})`,
    ws,
    `timeout ${s.timeoutMs.value} ms (${describeSource(s.timeoutMs)})`,
    `max retries ${s.maxRetries.value} (${describeSource(s.maxRetries)})`,
  ].join('; ');
}

/**
 * How to fix a rejected key depends on where it came from, and on where the base URL came from: a
 * valid key sent to another API (MAILROOM_BASE_URL left pointing at a sandbox) is refused too.
 */
export function authHint(settings: Settings): string {
  const key = settings.apiKey;
  const base = settings.baseUrl;
  if (key?.source === 'sandbox') return 'the sandbox rejected its own key: report this as a bug';
  const profileFlag = settings.profile.value === DEFAULT_PROFILE ? '' : ` --profile ${settings.profile.value}`;
  let fix: string;
  if (!key || key.source === 'profile') fix = `run \`mailroom login${profileFlag}\` to store a valid key`;
  else if (key.source === 'flag') fix = `check the key given with ${key.origin}`;
  else fix = `check ${key.origin} (it overrides the stored profile)`;
  if (key && base.source !== 'default' && base.source !== key.source) {
    const where = base.source === 'profile' ? `the base-url of ${base.origin}` : base.origin;
    fix = `a key is valid only on the API that issued it: check ${where}, or ${fix}`;
  }
  const baseFrom = base.source === 'default' ? `the base URL ${base.value} is the default` : `the base URL ${base.value} from ${describeSource(base)}`;
  return key ? `${fix}; the key came from ${describeSource(key)}, ${baseFrom}` : fix;
}

/**
 * A profile named on purpose (--profile, MAILROOM_PROFILE) that is not in the store is a typo, even
 * when env credentials would let the command run: it must not run with credentials nobody chose.
 */
export function requireNamedProfile(settings: Settings): void {
  if (settings.profileExists || settings.profile.source === 'default') return;
  const name = settings.profile.value;
  const known = settings.storedProfiles.length > 0 ? `profiles: ${settings.storedProfiles.join(', ')}` : 'there are none yet';
  const create = `create it with \`mailroom login --profile ${name}\``;
  throw usageError(`no profile "${name}" in the config store (${known})`, [settings.storedProfiles.length > 0 ? `${create}, or pick one of the above` : create]);
}

export function requireApiKey(settings: Settings): string {
  if (settings.apiKey) return settings.apiKey.value;
  if (settings.apiKeyRefused) throw new MailroomError('authentication', settings.apiKeyRefused.message, { hints: settings.apiKeyRefused.hints });
  const profileFlag = settings.profile.value === DEFAULT_PROFILE ? '' : ` --profile ${settings.profile.value}`;
  // Under --profile the environment is not read: an empty variable is then beside the point.
  const empty = settings.profile.source === 'flag' ? undefined : settings.emptyKeyVariable;
  const where = empty
    ? `no API key: ${empty} is set but empty (in CI: a secret this job cannot read?)`
    : settings.profileExists
      ? `profile "${settings.profile.value}" has no API key`
      : `no API key (profile "${settings.profile.value}" is not set up)`;
  const asideVar = settings.profile.source === 'flag' ? settings.keyVariable : undefined;
  throw new MailroomError('authentication', where, {
    hints: [
      `run \`mailroom login${profileFlag}\`, or set MAILROOM_API_KEY, or pass --api-key`,
      ...(asideVar ? [`--profile ${settings.profile.value} leaves ${asideVar} aside: drop --profile to use it`] : []),
      'no account yet? add --sandbox to try any command against a local API that sends nothing',
    ],
  });
}

