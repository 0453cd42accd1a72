import type { Context } from '../context.js';

/**
 * One JSON document per command line (docs/input-and-output.md, "Errors and partial results"):
 * what a command prints as JSON is held, with the error that may follow it, until the command has
 * ended; then exactly one document goes to stdout: the result (two-space indented), the result with
 * its error inside (`"error": {...}`) when the command failed after it had one, or the error alone
 * (`{"error": {...}}`, one line) when there is no result and `--json` was given. A stream of records
 * (webhooks listen, replay) writes its lines itself; its error is then its last line.
 */
export function holdResult(ctx: Pick<Context, 'io' | 'document' | 'jq'>, value: unknown): void {
  if (!ctx.document) {
    writeResult(ctx, value);
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

/**
 * `batch --report -` or `--failed -`: stdout carries that file alone, error or not
 * (docs/input-and-output.md), so no `{"error"}` document may be written there.
 */
export function stdoutCarriesFile(options: readonly string[]): boolean {
  if (!options.includes('batch')) return false;
  return options.some((a, i) => ((a === '--report' || a === '--failed') && options[i + 1] === '-') || a === '--report=-' || a === '--failed=-');
}

/**
 * Writes the held document (run() calls it once, after the command, whatever happened). False when
 * `--jq` failed on it: the document was then written whole instead, and jq's message said why.
 */
export function writeDocument(ctx: Pick<Context, 'io' | 'document' | 'jq'>, json: boolean): boolean {
  const doc = ctx.document;
  if (!doc) return true;
  const { result, error } = doc;
  delete doc.result;
  delete doc.error;
  if (result) {
    const value = result.value;
    const embeds = error !== undefined && typeof value === 'object' && value !== null && !Array.isArray(value);
    return writeResult(ctx, embeds ? { ...(value as Record<string, unknown>), error } : value);
  }
  // Under --jq the error alone is not filtered: its line on stderr and the exit code say it (as gh).
  // A stdout that carries a file (batch --report -) gets no line that is not of that file: the error
  // is on stderr (its line, and the run's JSON summary there) and in the exit code.
  if (error && json && !ctx.jq && !doc.stdoutIsData) ctx.io.out.write(`${JSON.stringify({ error })}\n`);
  return true;
}

/**
 * The result as JSON (two-space indented), or through `--jq`: what jq prints, strings raw, values
 * compact when piped and indented on a terminal (as gh's --jq). When jq fails on it (`.items[]` of
 * an object), the result is written whole, never lost (a key shown once may be in it), and jq's
 * message goes to stderr.
 */
function writeResult(ctx: Pick<Context, 'io' | 'jq'>, value: unknown): boolean {
  if (!ctx.jq) {
    ctx.io.out.write(`${JSON.stringify(value, null, 2)}\n`);
    return true;
  }
  const filtered = ctx.jq.run(value, ctx.io.isStdoutTTY);
  if (filtered.error === undefined) {
    ctx.io.out.write(filtered.text);
    return true;
  }
  ctx.io.out.write(`${JSON.stringify(value, null, 2)}\n`);
  ctx.io.err.write(`mailroom: --jq: ${filtered.error}\n  the command's whole JSON is printed above instead; it did its work\n`);
  return false;
}
