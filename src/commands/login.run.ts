import type { CommandContext } from './context.js';
import { storedProfile } from '../config/file.js';
import { checkKeychain, migrateKeys, saveKey } from '../config/credentials.js';
import { DEFAULT_PROFILE, keyVariable, storageMode } from '../config/settings.js';
import { normalizeBaseUrl } from '../config/url.js';
import { openStore, PROFILE_NAME } from '../config/store.js';
import { MailroomError, interruptedError, usageError } from '../errors.js';
import { readSource } from '../input/sources.js';
import { stdinFor } from '../input/stdin.js';
import { mask, outputMode, printJson, printKeyValues } from '../output/index.js';
import { oneLine } from '../output/one-line.js';
import { hasPrefix } from '../schema/ids.js';
import { ApiError } from '../transport/index.js';
import { paths } from '../api/paths.js';
import { notice } from '../output/notice.js';

export interface LoginOptions {
  apiKeyStdin?: boolean;
  /** auto | required | off (credentials.ts). */
  secureStorage?: string;
  /** Move the keys kept in the file into the keychain; no key is asked for, no request made. */
  migrate?: boolean;
}

export async function run(opts: LoginOptions, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  const base = ctx.settings();
  const profile = base.profile.value;
  if (!PROFILE_NAME.test(profile)) throw usageError(`profile name "${profile}" may use letters, digits, "-" and "_" only`);
  const workspace = globals.workspace;
  if (workspace !== undefined) {
    if (!hasPrefix('workspace', workspace)) throw usageError(`--workspace: "${workspace}" is not a workspace id (expected wrk_...)`);
  }

  // A store that cannot be written fails now: before asking for a key or spending a request.
  const store = await openStore(ctx.env);
  store.checkWritable();
  if (opts.migrate) return migrate(ctx, opts, store);
  const storedNow = storedProfile(store.read(), profile);
  const mode = storageMode(ctx.env, storedNow, `profile ${profile}`, base.profile.source === 'flag', opts.secureStorage);
  checkKeychain(ctx, store, profile, mode);
  const storedUrl = storedNow?.baseUrl;
  const host = checkHost(ctx, profile, storedUrl);
  const key = await obtainKey(ctx, opts);
  let result: Record<string, unknown>;
  try {
    const res = await (await ctx.api({ apiKey: key, origin: 'login', baseUrl: host.url })).request<Record<string, unknown>>({ method: 'GET', path: paths.keyCheck(), signal: ctx.signal });
    result = res.body && typeof res.body === 'object' ? res.body : {};
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
      throw new MailroomError('authentication', `${host.url} rejected this key (${err.status}); nothing was saved`, {
        requestId: err.requestId,
        hints: ['check that you copied the whole key (sk_live_...), and --base-url if you use another host'],
      });
    }
    throw err;
  }

  // The key goes with the host it was just checked on, always: never a key without its host.
  const saved = saveKey(ctx, store, profile, key, mode, { baseUrl: host.url, ...(workspace !== undefined ? { workspace } : {}) }, (line) => ctx.io.err.write(`${line}\n`));
  if (!globals.quiet && host.note) notice(ctx.io.err, 'note', host.note);

  const out = outputMode(ctx, globals);
  if (out.quiet) return;
  // A key in the environment outranks the stored one (but for --profile): the login would seem to have no effect.
  const envKey = globals.apiKeyFile === undefined ? keyVariable(ctx.env) : undefined;
  if (envKey && ctx.env[envKey] !== key) {
    notice(ctx.io.err, 'note', base.profile.source === 'flag' ? `${envKey} is used instead of this key unless --profile ${profile} is given` : `${envKey} overrides the stored key while it is set`);
  }
  const now = storedProfile(store.read(), profile) ?? {};
  const view = {
    profile,
    displayName: typeof result.displayName === 'string' ? result.displayName : undefined,
    role: typeof result.role === 'string' ? result.role : undefined,
    key: mask(key),
    baseUrl: now.baseUrl ?? host.url,
    workspace: now.workspace,
    keyIn: saved.where,
    configFile: store.path,
  };
  if (out.format === 'json') return printJson(ctx, view);
  ctx.io.err.write(`Logged in to profile "${profile}" as ${view.displayName ? oneLine(view.displayName) : 'an unnamed key'}.\n`);
  await printKeyValues(ctx, [
    ['profile', view.profile],
    ['name', view.displayName],
    ['role', view.role],
    ['key', view.key],
    ['api', view.baseUrl],
    ['workspace', view.workspace],
    ['key kept in', saved.where === 'keychain' ? 'the system keychain' : view.configFile],
    ['saved to', view.configFile],
  ]);
}

async function migrate(ctx: CommandContext, opts: LoginOptions, store: Awaited<ReturnType<typeof openStore>>): Promise<void> {
  if (opts.apiKeyStdin || opts.secureStorage !== undefined || ctx.globals.apiKey !== undefined || ctx.globals.apiKeyFile !== undefined) {
    throw usageError('--migrate moves the keys already stored: it takes no key and no --secure-storage');
  }
  const moved = migrateKeys(ctx, store);
  const out = outputMode(ctx, ctx.globals);
  if (out.quiet) return;
  if (out.format === 'json') return printJson(ctx, { moved, configFile: store.path });
  ctx.io.err.write(moved.length === 0 ? `No key is kept in ${store.path}: nothing to move.\n` : `Moved into the system keychain: ${moved.map((p) => `profile ${p}`).join(', ')}. ${store.path} holds no key now.\n`);
}

/**
 * The host the key is checked on, which is the host it is saved with: `--base-url`; else, under
 * `--profile`, the profile's stored URL; else the environment's, the profile's or the default, as
 * for any command. A login that would move a profile to another host without `--base-url` saying so
 * (MAILROOM_BASE_URL naming another host than the stored one) is refused before anything is sent;
 * one that moves it with `--base-url`, or leaves the environment's URL aside, says so in a note.
 */
function checkHost(ctx: CommandContext, profile: string, storedUrl: string | undefined): { url: string; note?: string } {
  const base = ctx.settings().baseUrl;
  const envUrl = ctx.env.MAILROOM_BASE_URL ? normalizeBaseUrl(ctx.env.MAILROOM_BASE_URL, 'MAILROOM_BASE_URL') : undefined;
  const moved = (url: string) => (storedUrl !== undefined && storedUrl !== url ? `profile ${profile}'s base URL is now ${url} (was ${storedUrl})` : undefined);
  if (base.source === 'flag' || base.source === 'sandbox') return withNote(base.value, moved(base.value));
  if (ctx.settings().profile.source === 'flag') {
    if (storedUrl === undefined) return { url: envUrl ?? base.value };
    return withNote(storedUrl, envUrl !== undefined && envUrl !== storedUrl ? `checked on ${storedUrl}, the base URL of profile ${profile}; MAILROOM_BASE_URL (${envUrl}) is not used with --profile ${profile}` : undefined);
  }
  if (base.source === 'env' && storedUrl !== undefined && storedUrl !== base.value) {
    throw usageError(`MAILROOM_BASE_URL (${base.value}) is not the base URL of profile ${profile} (${storedUrl}): refusing to save a key for another host`, [
      `to save it for ${base.value}, say so: mailroom login${profile === DEFAULT_PROFILE ? '' : ` --profile ${profile}`} --base-url ${base.value}`,
      `to log in to ${storedUrl}, unset MAILROOM_BASE_URL`,
    ]);
  }
  return { url: base.value };
}

const withNote = (url: string, note: string | undefined): { url: string; note?: string } => (note === undefined ? { url } : { url, note });

/** Never requires the key in argv (shell history, `ps`): prompt, stdin, or the --api-key flag. */
async function obtainKey(ctx: CommandContext, opts: LoginOptions): Promise<string> {
  const { globals } = ctx;
  if (opts.apiKeyStdin) {
    const key = (await readSource('-', '--api-key-stdin', ctx.cwd, stdinFor(ctx, 'the API key'))).trim();
    if (!key) throw usageError('--api-key-stdin: stdin was empty');
    if (/\s/.test(key)) throw usageError('--api-key-stdin: expected one key, got text with spaces or several lines');
    return key;
  }
  if (globals.apiKey) return globals.apiKey;
  if (!ctx.io.isStdinTTY) {
    throw usageError('no terminal to ask for the API key', [`pipe it instead: printf '%s' "$SMASHSEND_API_KEY" | mailroom login --api-key-stdin`]);
  }
  try {
    const key = await ctx.prompter.password(ctx, 'SMASHSEND API key (input hidden):', (v) => v.trim() !== '' || 'the key cannot be empty');
    return key.trim();
  } catch (err) {
    if (err instanceof Error && err.name === 'ExitPromptError') throw interruptedError('nothing was saved');
    throw err;
  }
}
