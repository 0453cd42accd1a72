import { CommanderError } from 'commander';
import { processIO, type Context } from './context.js';
import { EXIT, isCliError } from './errors.js';
import { runCommandLine } from './program.js';
import { guardIO } from './secrets.js';

/** The only place that ends the process: every error becomes one line and a documented exit code. */
async function main(argv: string[]): Promise<number> {
  const env = process.env;
  const controller = new AbortController();
  let interrupts = 0;
  process.on('SIGINT', () => {
    interrupts += 1;
    // First Ctrl-C lets in-flight work settle; a second one means "now".
    if (interrupts > 1) process.exit(130);
    controller.abort();
  });
  const noColor = argv.includes('--no-color');
  const ctx: Context = { io: guardIO(processIO(env, noColor ? false : undefined)), env, cwd: process.cwd(), signal: controller.signal };
  const verbose = argv.includes('--verbose') || argv.includes('-v') || env.MAILROOM_DEBUG === '1';
  try {
    await runCommandLine(ctx, argv.slice(2));
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (err) {
    return report(err, ctx, verbose);
  }
}

function report(err: unknown, ctx: Context, verbose: boolean): number {
  const write = (line: string) => void ctx.io.err.write(`${line}\n`);
  if (err instanceof CommanderError) {
    // Commander already printed its one line (or the help/version text).
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT.ok;
    return EXIT.usage;
  }
  if (isCliError(err)) {
    write(`mailroom: ${err.message}`);
    for (const hint of err.hints) write(`  ${hint}`);
    if (err.requestId) write(`  request id: ${err.requestId}`);
    if (verbose && err.cause instanceof Error && err.cause.stack) write(err.cause.stack);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  write(`mailroom: unexpected error: ${message}`);
  if (verbose && err instanceof Error && err.stack) write(err.stack);
  else write('  run again with --verbose for details');
  return EXIT.unexpected;
}

main(process.argv).then(
  (code) => process.exit(code),
  () => process.exit(EXIT.unexpected),
);
