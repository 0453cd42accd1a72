import { processIO, type Context } from './context.js';
import { EXIT } from './errors.js';
import { runCommandLine } from './program.js';
import { guardIO } from './secrets.js';
import { report } from './report.js';

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
    const options = argv.slice(2, argv.includes('--') ? argv.indexOf('--') : undefined);
    return report(err, ctx, { verbose, json: options.some((a) => a === '--json' || a.startsWith('--json=')) });
  }
}

main(process.argv).then(
  (code) => process.exit(code),
  () => process.exit(EXIT.unexpected),
);
