import { Command, InvalidArgumentError, Option } from 'commander';
import type { Context } from './context.js';
import { VERSION } from './version.js';
import { registerCommands } from './commands/index.js';

export function parseIntegerOption(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`${name} must be a whole number`);
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`${name} must be between ${min} and ${max}`);
    return n;
  };
}

/** Columns of help text (Commander's default when not on a terminal); bin/mailroom.js relies on it. */
const HELP_WIDTH = 80;

/** Global options that take a value: the word after them is not the command name. */
const VALUE_OPTIONS = new Set(['--profile', '--api-key', '--base-url', '--workspace', '--timeout', '--max-retries']);

/** The first operand of the user's arguments (argv without node and script), if any. */
export function commandName(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') return args[i + 1];
    if (!arg.startsWith('-')) return arg;
    if (VALUE_OPTIONS.has(arg)) i++;
  }
  return undefined;
}

/**
 * Builds the command tree: with `args`, only the command they name (all of them for the root help,
 * an unknown name, or no name), since command modules import their work lazily but Commander's
 * objects for every option of every command are not free.
 */
export function buildProgram(ctx: Context, args?: readonly string[]): Command {
  const program = new Command('mailroom')
    .description('Send transactional email, manage API keys and webhooks, and run a local sandbox of the SMASHSEND API.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addHelpCommand(false)
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => void ctx.io.out.write(s),
      writeErr: (s) => void ctx.io.err.write(s),
      // Help is never wider than HELP_WIDTH (narrower on a narrow terminal), so the help text is the
      // same on every wide terminal and through a pipe: bin/mailroom.js prints it from dist/help.json.
      getOutHelpWidth: () => Math.min(ctx.io.outColumns ?? HELP_WIDTH, HELP_WIDTH),
      getErrHelpWidth: () => Math.min(ctx.io.errColumns ?? HELP_WIDTH, HELP_WIDTH),
      // One line per usage error (design/cli.md): Commander's "Did you mean" goes on the same line.
      outputError: (s, write) => write(s.replace(/^error: /, 'mailroom: ').replace(/\n\(Did you mean (.+?)\?\)/, ' (did you mean $1?)')),
    })
    .option('--profile <name>', 'stored profile to use (env MAILROOM_PROFILE; default "default")')
    .option('--api-key <key>', 'API key for this call (env MAILROOM_API_KEY, SMASHSEND_API_KEY)')
    .option('--base-url <url>', 'API host root (env MAILROOM_BASE_URL; default https://api.smashsend.com)')
    .option('--workspace <wrk_id>', 'workspace for keys commands (env MAILROOM_WORKSPACE)')
    .option('--sandbox', 'run this one command against a throw-away local sandbox (no account needed)')
    .option('--json', 'machine output: JSON on stdout')
    .option('-q, --quiet', 'print nothing on success; exit code only')
    .option('-v, --verbose', 'log requests and responses to stderr, secrets redacted (env MAILROOM_DEBUG=1)')
    .option('--no-color', 'no colour (env NO_COLOR; FORCE_COLOR forces it)')
    .addOption(new Option('--timeout <ms>', 'per-request timeout in ms (default 30000)').argParser(parseIntegerOption('--timeout', 1)))
    .addOption(new Option('--max-retries <n>', 'retries for retryable failures (default 3)').argParser(parseIntegerOption('--max-retries', 0, 20)));

  program.addHelpText(
    'after',
    `
Examples:
  $ mailroom sandbox                                  # local emulator, no account needed
  $ mailroom send --from you@example.com --to a@example.com --subject Hi --html '<p>Hi</p>'
  $ mailroom batch emails.ndjson --report report.ndjson
  $ mailroom check -q && ./deploy.sh

Exit codes: 0 ok, 1 unexpected, 2 usage, 3 auth, 4 rejected, 5 limits, 6 network, 7 batch partly failed, 8 signature mismatch.`,
  );

  // --sandbox lives exactly as long as the command's action; the session module loads the sandbox lazily.
  program.hook('preAction', async (_root, action) => {
    const globals = action.optsWithGlobals<{ sandbox?: boolean; quiet?: boolean }>();
    if (!globals.sandbox) return;
    const { openSandboxSession } = await import('./config/sandbox-session.js');
    await openSandboxSession(ctx, ctx.io.isStderrTTY && !globals.quiet);
  });
  program.hook('postAction', async (_root, action) => {
    if (!action.optsWithGlobals<{ sandbox?: boolean }>().sandbox) return;
    const { closeSandboxSession } = await import('./config/sandbox-session.js');
    await closeSandboxSession();
  });

  const name = args === undefined ? undefined : commandName(args);
  const versionOnly = name === undefined && args !== undefined && args.some((a) => a === '-V' || a === '--version') && !args.some((a) => a === '-h' || a === '--help');
  // `completion` describes the whole tree; `--version` needs none of it.
  if (!versionOnly) registerCommands(program, ctx, name === 'completion' ? undefined : name);
  // Sub-commands inherit the error/output handling of the root.
  for (const cmd of allCommands(program)) {
    cmd.exitOverride().configureOutput(program.configureOutput()).showSuggestionAfterError(true);
  }
  return program;
}

function* allCommands(cmd: Command): Generator<Command> {
  for (const sub of cmd.commands) {
    yield sub;
    yield* allCommands(sub);
  }
}
