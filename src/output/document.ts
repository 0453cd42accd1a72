import type { Context } from '../context.js';

/**
 * One JSON document per command line (docs/input-and-output.md, "Errors and partial results"):
 * what a command prints as JSON is held, with the error that may follow it, until the command has
 * ended; then exactly one document goes to stdout: the result (two-space indented), the result with
 * its error inside (`"error": {...}`) when the command failed after it had one, or the error alone
 * (`{"error": {...}}`, one line) when there is no result and `--json` was given. A stream of records
 * (webhooks listen, replay) writes its lines itself; its error is then its last line.
 */
export function holdResult(ctx: Pick<Context, 'io' | 'document'>, value: unknown): void {
  if (!ctx.document) {
    ctx.io.out.write(resultText(value));
    return;
  }
  // A second result would be a second document: a bug in the command, not the user's problem.
  if (ctx.document.result) throw new Error('a command printed two JSON results');
  ctx.document.result = { value };
}

/** The error of the command line, as JSON: held beside the result, or written now without a document. */
export function holdError(ctx: Pick<Context, 'io' | 'document'>, error: Record<string, unknown>, json: boolean): void {
  if (!ctx.document) {
    if (json) ctx.io.out.write(`${JSON.stringify({ error })}\n`);
    return;
  }
  ctx.document.error = error;
}

/** Writes the held document (run() calls it once, after the command, whatever happened). */
export function writeDocument(ctx: Pick<Context, 'io' | 'document'>, json: boolean): void {
  const doc = ctx.document;
  if (!doc) return;
  const { result, error } = doc;
  delete doc.result;
  delete doc.error;
  if (result) {
    const value = result.value;
    const embeds = error !== undefined && typeof value === 'object' && value !== null && !Array.isArray(value);
    ctx.io.out.write(resultText(embeds ? { ...(value as Record<string, unknown>), error } : value));
    return;
  }
  if (error && json) ctx.io.out.write(`${JSON.stringify({ error })}\n`);
}

const resultText = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
