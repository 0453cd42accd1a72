import type { CommandContext } from '../client.js';
import { describeSource } from '../config/settings.js';
import { mask, outputMode, printJson, printKeyValues } from '../output/index.js';
import { paths } from '../api/paths.js';

/**
 * Kept lean on purpose (CI runs it before every deploy): no zod, no conf, no api/ layer; the check
 * result is read by hand, tolerating fields the spec does not list.
 */
export async function run(_opts: Record<string, never>, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  const settings = ctx.settings();
  const { body } = await (await ctx.api()).request({ method: 'GET', path: paths.keyCheck(), signal: ctx.signal });
  if (globals.quiet) return;
  const result = readCheckResult(body);
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
