import type { CommandContext } from '../client.js';
import { storedProfile } from '../config/file.js';
import { openStore, PROFILE_NAME } from '../config/store.js';
import { CliError, interruptedError, usageError } from '../errors.js';
import { readSource } from '../input/sources.js';
import { stdinFor } from '../input/stdin.js';
import { mask, outputMode, printJson, printKeyValues } from '../output/index.js';
import { oneLine } from '../output/one-line.js';
import { hasPrefix } from '../schema/ids.js';
import { ApiError } from '../transport/index.js';
import { paths } from '../api/paths.js';

export interface LoginOptions {
  apiKeyStdin?: boolean;
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
  const key = await obtainKey(ctx, opts);
  let result: Record<string, unknown>;
  try {
    const res = await (await ctx.api({ apiKey: key, origin: 'login' })).request<Record<string, unknown>>({ method: 'GET', path: paths.keyCheck(), signal: ctx.signal });
    result = res.body && typeof res.body === 'object' ? res.body : {};
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
      throw new CliError('auth', `${base.baseUrl.value} rejected this key (${err.status}); nothing was saved`, {
        requestId: err.requestId,
        hints: ['check that you copied the whole key (sk_live_...), and --base-url if you use another host'],
      });
    }
    throw err;
  }

  store.updateProfile(profile, {
    apiKey: key,
    ...(globals.baseUrl !== undefined ? { baseUrl: base.baseUrl.value } : {}),
    ...(workspace !== undefined ? { workspace } : {}),
  });

  const mode = outputMode(ctx, globals);
  if (mode.quiet) return;
  // A key in the environment outranks the stored one: the login would seem to have no effect.
  const envKey = globals.apiKeyFile === undefined ? ['MAILROOM_API_KEY', 'SMASHSEND_API_KEY'].find((name) => ctx.env[name]) : undefined;
  if (envKey && ctx.env[envKey] !== key) ctx.io.err.write(`note: ${envKey} overrides the stored key while it is set\n`);
  const saved = storedProfile(store.read(), profile) ?? {};
  const view = {
    profile,
    displayName: typeof result.displayName === 'string' ? result.displayName : undefined,
    role: typeof result.role === 'string' ? result.role : undefined,
    key: mask(key),
    baseUrl: saved.baseUrl ?? base.baseUrl.value,
    workspace: saved.workspace,
    configFile: store.path,
  };
  if (mode.format === 'json') return printJson(ctx, view);
  ctx.io.err.write(`Logged in to profile "${profile}" as ${view.displayName ? oneLine(view.displayName) : 'an unnamed key'}.\n`);
  await printKeyValues(ctx, [
    ['profile', view.profile],
    ['name', view.displayName],
    ['role', view.role],
    ['key', view.key],
    ['api', view.baseUrl],
    ['workspace', view.workspace],
    ['saved to', view.configFile],
  ]);
}

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
