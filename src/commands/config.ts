import type { Command } from 'commander';
import type { Context } from '../context.js';
import { usageError } from '../errors.js';
import type { Globals } from '../context.js';
import type { Setting, Settings } from '../config/settings.js';
import { didYouMean, matchChoice } from '../input/choice.js';

/** Settings a user can name; only the first three are stored in a profile. */
const STORED_KEYS = ['api-key', 'base-url', 'workspace'] as const;
const ALL_KEYS = [...STORED_KEYS, 'profile', 'timeout', 'max-retries'] as const;
type StoredKey = (typeof STORED_KEYS)[number];
type Key = (typeof ALL_KEYS)[number];

export interface ConfigEntry {
  key: Key;
  value: string | number | null;
  source: Setting<unknown>['source'] | null;
  origin: string | null;
}

export function register(parent: Command, ctx: Context): void {
  const config = parent
    .command('config')
    .description('show and edit settings: each value with where it came from (flag, env, profile, default)')
    .addHelpText(
      'after',
      `
Keys: ${ALL_KEYS.join(', ')} (set/unset: ${STORED_KEYS.join(', ')}, stored in the --profile profile).

Examples:
  $ mailroom config list
  $ mailroom config get base-url
  $ mailroom config set workspace wrk_123 --profile ci
  $ printf '%s' "$KEY" | mailroom config set api-key -     # prefer \`mailroom login\`: it checks the key
  $ mailroom config unset base-url
  $ mailroom config path`,
    );
  const globalsOf = (cmd: Command) => cmd.optsWithGlobals<Globals>();
  config
    .command('list')
    .description('every effective setting, its source, secrets masked')
    .addHelpText('after', examples('mailroom config list', 'mailroom config list --profile ci --json'))
    .action(async (_o: unknown, cmd: Command) => list(ctx, globalsOf(cmd)));
  config
    .command('get')
    .description('one effective setting, as plain text (--json: with its source; api-key is masked)')
    .addHelpText('after', examples('mailroom config get base-url', 'mailroom config get workspace --json    # {"key","value","source","origin"}'))
    .argument('<key>', ALL_KEYS.join(' | '))
    .action(async (key: string, _o: unknown, cmd: Command) => get(ctx, globalsOf(cmd), key));
  config
    .command('set')
    .description('store a setting in the profile')
    .addHelpText(
      'after',
      examples('mailroom config set workspace wrk_123', 'mailroom config set base-url http://127.0.0.1:4025 --profile sandbox', `printf '%s' "$KEY" | mailroom config set api-key -     # prefer \`mailroom login\``),
    )
    .argument('<key>', STORED_KEYS.join(' | '))
    .argument('<value>', 'the value; for api-key, "-" reads it from stdin (argv is visible to other local users)')
    .action(async (key: string, value: string, _o: unknown, cmd: Command) => set(ctx, globalsOf(cmd), key, value));
  config
    .command('unset')
    .description('remove a setting from the profile')
    .addHelpText('after', examples('mailroom config unset base-url', 'mailroom config unset api-key --profile ci'))
    .argument('<key>', STORED_KEYS.join(' | '))
    .action(async (key: string, _o: unknown, cmd: Command) => unset(ctx, globalsOf(cmd), key));
  config
    .command('path')
    .description('where the config store lives')
    .addHelpText('after', examples('mailroom config path', 'MAILROOM_CONFIG_DIR=/tmp/mr mailroom config path'))
    .action(async (_o: unknown, cmd: Command) => path(ctx, globalsOf(cmd)));
}

function asKey<K extends string>(key: string, allowed: readonly K[]): K {
  // Any case, and the camelCase of the JSON store (apiKey, maxRetries) too.
  const k = key.trim().replace(/([a-z])([A-Z])/g, '$1-$2');
  const found = matchChoice(k, allowed);
  if (found === undefined) throw usageError(`unknown config key "${key}"${didYouMean(k, allowed)}: expected one of ${allowed.join(', ')}`);
  return found;
}

async function entries(ctx: Context, globals: Globals): Promise<ConfigEntry[]> {
  const [{ resolveSettings }, { mask }] = await Promise.all([import('../config/settings.js'), import('../secrets.js')]);
  const s = resolveSettings(ctx, globals);
  const settingOf: Record<Key, Setting<string | number> | undefined> = {
    profile: s.profile,
    'api-key': s.apiKey && { ...s.apiKey, value: mask(s.apiKey.value) },
    'base-url': s.baseUrl,
    workspace: s.workspace,
    timeout: s.timeoutMs,
    'max-retries': s.maxRetries,
  };
  return ALL_KEYS.map((key) => {
    const v = settingOf[key];
    return { key, value: v?.value ?? null, source: v?.source ?? null, origin: v?.origin ?? null };
  });
}

async function list(ctx: Context, globals: Globals): Promise<void> {
  const [rows, output, { describeSource }] = await Promise.all([entries(ctx, globals), import('../output/index.js'), import('../config/settings.js')]);
  const mode = output.outputMode(ctx, globals);
  if (mode.quiet) return;
  if (mode.format === 'json') return output.printJson(ctx, rows);
  await output.printTable(ctx, rows, [
    { header: 'KEY', value: (r) => r.key },
    { header: 'VALUE', value: (r) => r.value ?? '(not set)', kind: 'text' },
    { header: 'SOURCE', value: (r) => (r.source && r.origin ? describeSource({ source: r.source, origin: r.origin }) : '') },
  ]);
}

async function get(ctx: Context, globals: Globals, name: string): Promise<void> {
  const key = asKey(name, ALL_KEYS);
  const [rows, output] = await Promise.all([entries(ctx, globals), import('../output/index.js')]);
  const entry = rows.find((r) => r.key === key) as ConfigEntry;
  // Plain when piped too, like `git config` and `gh config get`: `$(mailroom config get workspace)`.
  if (globals.quiet) return;
  if (globals.json) return output.printJson(ctx, entry);
  if (entry.value === null) ctx.io.err.write(`${key} is not set\n`);
  else ctx.io.out.write(`${entry.value}\n`);
}

async function set(ctx: Context, globals: Globals, name: string, raw: string): Promise<void> {
  const key = asKey<StoredKey>(name, STORED_KEYS);
  const value = await validated(ctx, key, raw);
  await write(ctx, globals, key, value);
}

async function unset(ctx: Context, globals: Globals, name: string): Promise<void> {
  await write(ctx, globals, asKey<StoredKey>(name, STORED_KEYS), undefined);
}

const FIELD = { 'api-key': 'apiKey', 'base-url': 'baseUrl', workspace: 'workspace' } as const;

async function write(ctx: Context, globals: Globals, key: StoredKey, value: string | undefined): Promise<void> {
  const [{ resolveSettings }, { openStore, PROFILE_NAME }] = await Promise.all([import('../config/settings.js'), import('../config/store.js')]);
  const settings: Settings = resolveSettings(ctx, globals);
  const profile = settings.profile.value;
  if (!PROFILE_NAME.test(profile)) throw usageError(`profile name "${profile}" may use letters, digits, "-" and "_" only`);
  const store = await openStore(ctx.env);
  const had = store.read().profiles[profile]?.[FIELD[key]] !== undefined;
  store.updateProfile(profile, { [FIELD[key]]: value });
  if (!globals.quiet && ctx.io.isStdoutTTY) {
    ctx.io.err.write(value === undefined ? (had ? `Removed ${key} from profile "${profile}".\n` : `${key} was not set in profile "${profile}".\n`) : `Saved ${key} in profile "${profile}".\n`);
  }
  // A stored value under a flag or variable has no effect yet: say so instead of leaving users puzzled.
  const shadow = ({ 'api-key': settings.apiKey, 'base-url': settings.baseUrl, workspace: settings.workspace } as const)[key];
  if (value !== undefined && shadow && (shadow.source === 'env' || shadow.source === 'flag')) {
    ctx.io.err.write(`note: ${shadow.origin} overrides the stored ${key} while it is set\n`);
  }
}

async function validated(ctx: Context, key: StoredKey, raw: string): Promise<string> {
  if (key === 'base-url') {
    const { normalizeBaseUrl } = await import('../config/url.js');
    return normalizeBaseUrl(raw, 'base-url');
  }
  if (key === 'workspace') {
    const { hasPrefix } = await import('../schema/ids.js');
    if (!hasPrefix('workspace', raw)) throw usageError(`workspace: "${raw}" is not a workspace id (expected wrk_...)`);
    return raw;
  }
  let secret = raw;
  if (raw === '-') {
    const [{ readSource }, { stdinFor }] = await Promise.all([import('../input/sources.js'), import('../input/stdin.js')]);
    secret = (await readSource('-', 'api-key', ctx.cwd, stdinFor(ctx, 'the API key'))).trim();
  }
  if (!secret || /\s/.test(secret)) throw usageError('api-key: expected one key without spaces');
  return secret;
}

async function path(ctx: Context, globals: Globals): Promise<void> {
  const { configFile } = await import('../config/paths.js');
  const file = configFile(ctx.env);
  if (globals.json) ctx.io.out.write(`${JSON.stringify({ path: file })}\n`);
  else ctx.io.out.write(`${file}\n`);
}

function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}`;
}
