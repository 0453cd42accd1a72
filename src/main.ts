import { processIO, type Context } from './context.js';
import { exitProcess } from './exit.js';
import { run } from './run.js';

const ending = exitProcess();

/**
 * The terminal echoes Ctrl-C as `^C` where the cursor is (a prompt, a progress bar): end that line,
 * so what follows ("mailroom: interrupted", a summary, the shell's prompt) starts on its own.
 */
function endEchoLine(): void {
  if (process.stderr.isTTY) process.stderr.write('\n');
}

/** The real process as a context: its streams, env and cwd; the first Ctrl-C aborts, a second exits 130. */
function processContext(argv: readonly string[]): Context {
  const env = process.env;
  const controller = new AbortController();
  let interrupts = 0;
  process.on('SIGINT', () => {
    interrupts += 1;
    // A third Ctrl-C while what was printed still waits for a slow reader: now, whatever is left.
    if (interrupts > 2) return ending.now(130);
    // The second means "now": what was printed still reaches its reader, nothing more is done.
    if (interrupts > 1) {
      endEchoLine();
      return ending.end(130);
    }
    // Abort first: a progress bar redraws its line over the echo, then the line ends.
    controller.abort();
    endEchoLine();
  });
  const noColor = argv.includes('--no-color');
  return { io: processIO(env, noColor ? false : undefined), env, cwd: process.cwd(), signal: controller.signal };
}

// Everything else is run() (src/run.ts), which tests call in-process; src/exit.ts ends the process.
run(process.argv.slice(2), processContext(process.argv)).then(
  (code) => ending.end(code),
  () => ending.end(1),
);
