import type { CommandContext } from './context.js';
import { describeSource } from '../config/settings.js';
import { clearTextProblem, loopbackFor } from '../config/url.js';
import { usageError } from '../errors.js';
import { mask, outputMode, printJson, printKeyValues } from '../output/index.js';
import { paths } from '../api/paths.js';

/**
 * Kept lean on purpose (CI runs it before every deploy): no zod, no conf, no api/ layer; the check
 * result is read by hand, tolerating fields the spec does not list.
 */
export async function run(_opts: Record<string, never>, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  const settings = ctx.settings();
  refuseClearText(settings.baseUrl.value, globals.allowHttp);
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

/**
 * check is the gate a deploy runs: it refuses, rather than warns, to send the key in clear text
 * (docs/configuration.md, "Plain http"). Nothing is sent; exit 2.
 */
function refuseClearText(baseUrl: string, allowed: boolean | undefined): void {
  if (allowed || clearTextProblem(baseUrl) === undefined) return;
  const local = loopbackFor(baseUrl);
  throw usageError(`refusing to send the API key in clear text to ${baseUrl} (http:// to a host that is not this machine's loopback); nothing was sent`, [
    `${local ? `for a sandbox on this machine use ${local}; else ` : ''}use https://, or pass --allow-http to send it anyway`,
  ]);
}

/** The answer as sent: a value of an unexpected type (null, a list of roles) is shown, not dropped. */
function readCheckResult(body: unknown): Record<string, unknown> {
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}
