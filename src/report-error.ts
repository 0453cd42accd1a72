import { CommanderError } from 'commander';
import type { Context } from './context.js';
import { isMailroomError, QuietExit } from './errors.js';
import { EXIT, exitNameOf, type ExitName } from './exit-codes.js';
import { transportHints } from './commands/shared/transport-hints.js';
import { oneLine } from './output/one-line.js';
import { holdError } from './output/document.js';

/**
 * Every error as one line (plus hints) on stderr and its documented exit code; as JSON also on
 * stdout (src/output/document.ts): inside the command's result when it printed one, else, under
 * --json, as `{"error": {...}}`, so a script reads one stream. Commander has printed its own line already.
 */
export function report(err: unknown, ctx: Context, opts: { verbose: boolean; json: boolean }): number {
  // Control characters from user input (a CR/LF in a path) are escaped: each line stays one line.
  const write = (line: string) => void ctx.io.err.write(`${oneLine(line)}\n`);
  const writeStack = (stack: string) => void ctx.io.err.write(`${stack}\n`);
  const asJson = (error: Record<string, unknown>) => holdError(ctx, error, opts.json);
  if (err instanceof QuietExit) {
    if (err.detail) {
      const kind = (Object.keys(EXIT) as (keyof typeof EXIT)[]).find((k) => k !== 'ok' && EXIT[k] === err.code) as ExitName | undefined;
      asJson({ kind: kind ?? 'unexpected', message: err.detail.message, exitCode: err.code, ...(err.detail.hints?.length ? { hints: err.detail.hints } : {}) });
    }
    return err.code;
  }
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT.ok;
    asJson({ kind: 'usage', message: err.message.replace(/^error: /, ''), exitCode: EXIT.usage });
    return EXIT.usage;
  }
  if (isMailroomError(err)) {
    const hints = [...transportHints(err), ...err.hints];
    write(`mailroom: ${err.message}`);
    for (const hint of hints) write(`  ${hint}`);
    if (err.requestId) write(`  request id: ${err.requestId}`);
    if (opts.verbose && err.cause instanceof Error && err.cause.stack) writeStack(err.cause.stack);
    const status = (err as { status?: unknown }).status;
    const kind = exitNameOf(err);
    asJson({
      kind,
      message: err.message,
      ...(typeof status === 'number' ? { statusCode: status } : {}),
      ...(err.requestId ? { requestId: err.requestId } : {}),
      exitCode: EXIT[kind],
      ...(hints.length > 0 ? { hints } : {}),
    });
    return EXIT[kind];
  }
  const message = err instanceof Error ? err.message : String(err);
  write(`mailroom: unexpected error: ${message}`);
  if (opts.verbose && err instanceof Error && err.stack) writeStack(err.stack);
  else write('  run again with --verbose for details');
  asJson({ kind: 'unexpected', message, exitCode: EXIT.unexpected });
  return EXIT.unexpected;
}
