import type { Context } from './context.js';
import { EXIT } from './exit-codes.js';
import { runCommandLine } from './program.js';
import { guardIO } from './secrets.js';
import { report } from './report-error.js';
import { stdoutCarriesFile, writeDocument } from './output/document.js';

/**
 * Runs the CLI on `args` (the user's arguments: argv without node and the script) and returns the
 * exit code. Every error becomes one line and its documented code here; it never ends the process,
 * so tests run the whole CLI in-process with a fake context (test/helpers/context.ts).
 */
export async function run(args: readonly string[], given: Context): Promise<number> {
  const ctx: Context = { ...given, io: guardIO(given.io), cleanups: [], document: {} };
  const verbose = args.includes('--verbose') || args.includes('-v') || ctx.env.MAILROOM_DEBUG === '1';
  const options = args.slice(0, args.includes('--') ? args.indexOf('--') : undefined);
  const json = options.some((a) => a === '--json' || a.startsWith('--json='));
  // Known from the command line, so an error before the command runs (a bad flag, a missing input)
  // keeps off a stdout that was promised to a file too.
  if (stdoutCarriesFile(options)) ctx.document!.stdoutIsData = true;
  let code: number = EXIT.ok;
  try {
    await runCommandLine(ctx, args);
  } catch (err) {
    code = report(err, ctx, { verbose, json });
  } finally {
    // One JSON document, whatever happened: the result (with its error inside), or the error alone.
    // --jq failing on it (after the command did its work) is exit 1, as gh's.
    if (!writeDocument(ctx, json) && code === EXIT.ok) code = EXIT.unexpected;
    // A failed close (a connection already gone) must not change the command's outcome.
    await Promise.allSettled((ctx.cleanups ?? []).map((close) => close()));
  }
  return code;
}
