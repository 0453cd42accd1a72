import type { Command } from 'commander';
import type { Context } from '../context.js';
import { CliError, interruptedError, usageError } from '../errors.js';
import type { Globals } from '../context.js';
import { oneLine } from '../output/one-line.js';

export interface LoginOptions {
  apiKeyStdin?: boolean;
}

export function register(parent: Command, ctx: Context): void {
  parent
    .command('login')
    .description('store an API key in a profile, after checking it with the API')
    .option('--api-key-stdin', 'read the key from stdin instead of a hidden prompt')
    .addHelpText(
      'after',
      `
The key is asked with a hidden prompt on a terminal, or read from stdin with --api-key-stdin; it is
checked (GET /v1/api-keys/check) before anything is saved. The global --profile, --base-url and
--workspace choose the profile and are stored with it.

Examples:
  $ mailroom login
  $ printf '%s' "$SMASHSEND_API_KEY" | mailroom login --api-key-stdin --profile ci
  $ mailroom login --profile staging --base-url https://staging-api.example.com --workspace wrk_123`,
    )
    .action(async (opts: LoginOptions, cmd: Command) => {
      await run(ctx, cmd.optsWithGlobals<Globals>(), opts);
    });
}

export async function run(ctx: Context, globals: Globals, opts: LoginOptions): Promise<void> {
  const [{ resolveSettings }, { openStore, PROFILE_NAME }, { createTransport }, { ApiError }] = await Promise.all([
    import('../config/settings.js'),
    import('../config/store.js'),
    import('../transport/create.js'),
    import('../transport/index.js'),
  ]);
  const base = resolveSettings(ctx, { ...globals, apiKey: undefined });
  const profile = base.profile.value;
  if (!PROFILE_NAME.test(profile)) throw usageError(`profile name "${profile}" may use letters, digits, "-" and "_" only`);
  const workspace = globals.workspace;
  if (workspace !== undefined) {
    const { hasPrefix } = await import('../schema/ids.js');
    if (!hasPrefix('workspace', workspace)) throw usageError(`--workspace: "${workspace}" is not a workspace id (expected wrk_...)`);
  }

  // A store that cannot be written fails now: before asking for a key or spending a request.
  const store = await openStore(ctx.env);
  store.checkWritable();
  const key = await obtainKey(ctx, globals, opts);
  const settings = { ...base, apiKey: { value: key, source: 'flag' as const, origin: 'login' } };
  const transport = await createTransport(ctx, settings);
  let result: Record<string, unknown>;
  try {
    const res = await transport.request<Record<string, unknown>>({ method: 'GET', path: '/v1/api-keys/check', signal: ctx.signal });
    result = res.body && typeof res.body === 'object' ? res.body : {};
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
      throw new CliError('auth', `${base.baseUrl.value} rejected this key (${err.status}); nothing was saved`, {
        requestId: err.requestId,
        hints: ['check that you copied the whole key (sk_live_...), and --base-url if you use another host'],
      });
    }
    throw err;
  } finally {
    await transport.close();
  }

  store.updateProfile(profile, {
    apiKey: key,
    ...(globals.baseUrl !== undefined ? { baseUrl: base.baseUrl.value } : {}),
    ...(workspace !== undefined ? { workspace } : {}),
  });

  const { outputMode, mask, printJson, printKeyValues } = await import('../output/index.js');
  const mode = outputMode(ctx, globals);
  if (mode.quiet) return;
  // A key in the environment outranks the stored one: the login would seem to have no effect.
  if (base.apiKey?.source === 'env' && base.apiKey.value !== key) ctx.io.err.write(`note: ${base.apiKey.origin} overrides the stored key while it is set\n`);
  const saved = store.read().profiles[profile] ?? {};
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
async function obtainKey(ctx: Context, globals: Globals, opts: LoginOptions): Promise<string> {
  if (opts.apiKeyStdin) {
    const [{ readSource }, { stdinFor }] = await Promise.all([import('../input/sources.js'), import('../input/stdin.js')]);
    const key = (await readSource('-', '--api-key-stdin', ctx.cwd, stdinFor(ctx, 'the API key'))).trim();
    if (!key) throw usageError('--api-key-stdin: stdin was empty');
    if (/\s/.test(key)) throw usageError('--api-key-stdin: expected one key, got text with spaces or several lines');
    return key;
  }
  if (globals.apiKey) return globals.apiKey;
  if (!ctx.io.isStdinTTY) {
    throw usageError('no terminal to ask for the API key', [`pipe it instead: printf '%s' "$SMASHSEND_API_KEY" | mailroom login --api-key-stdin`]);
  }
  const prompter = ctx.prompter ?? (await import('../input/prompter.js')).terminalPrompter;
  try {
    const key = await prompter.password(ctx, 'SMASHSEND API key (input hidden):', (v) => v.trim() !== '' || 'the key cannot be empty');
    return key.trim();
  } catch (err) {
    if (err instanceof Error && err.name === 'ExitPromptError') throw interruptedError('nothing was saved');
    throw err;
  }
}
