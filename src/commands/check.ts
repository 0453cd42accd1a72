import type { Command } from 'commander';
import type { Context } from '../context.js';
import type { Globals } from '../config/settings.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('check')
    .description('validate the API key (GET /v1/api-keys/check); exit 0 when valid, 3 when not')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom check                       # status, name, role and where the key came from
  $ mailroom check -q && ./deploy.sh     # CI: exit code only
  $ MAILROOM_API_KEY=sk_live_... mailroom check --json

Exit codes: 0 valid, 3 invalid or missing key, 5 rate limited, 6 API unreachable.`,
    )
    .action(async (_opts: unknown, cmd: Command) => {
      await run(ctx, cmd.optsWithGlobals<Globals>());
    });
}

/**
 * Kept lean on purpose (CI runs it before every deploy): no zod, no conf, no api/ layer; the check
 * result is read by hand, tolerating fields the spec does not list.
 */
export async function run(ctx: Context, globals: Globals): Promise<void> {
  const { services } = await import('../client.js');
  const api = services(ctx, globals);
  const settings = api.settings();
  const { body } = await (await api.api()).request({ method: 'GET', path: '/v1/api-keys/check', signal: ctx.signal });
  if (globals.quiet) return;
  const result = readCheckResult(body);
  const [{ outputMode, mask, printJson, printKeyValues }, { describeSource }] = await Promise.all([import('../output/index.js'), import('../config/settings.js')]);
  const mode = outputMode(ctx, globals);
  const key = settings.apiKey;
  const keyView = key ? { key: mask(key.value), keySource: key.source, keyOrigin: key.origin } : {};
  if (mode.format === 'json') {
    // Every field as sent; printJson masks secrets (a server could echo the key it checked).
    printJson(ctx, { ...result, ...keyView, baseUrl: settings.baseUrl.value });
    return;
  }
  await printKeyValues(ctx, [
    ['status', result.status],
    ['name', result.displayName],
    ['role', result.role],
    ['key', key ? mask(key.value) : undefined],
    ['key from', key ? describeSource(key) : undefined],
    ['api', settings.baseUrl.value],
  ]);
}

/** The answer as sent: a value of an unexpected type (null, a list of roles) is shown, not dropped. */
function readCheckResult(body: unknown): Record<string, unknown> {
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}
