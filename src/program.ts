import { Command, Option, type HelpContext } from 'commander';
import { parseDurationOption, parseIntegerOption } from './commands/shared/option-parsers.js';
import type { Context } from './context.js';
import { usageError } from './errors.js';
import { fitToWidth, helpLayout, helpWidth } from './help-layout.js';
import { takeJq, takeJsonFields } from './output/fields.js';
import { exitCodeLine, HELP_TOPICS } from './help-topics.js';
import { VERSION } from './version.js';
import { loadCommands, registerCommands } from './commands/index.js';
import { JSON_FIELD_WORDS } from './commands/shared/json-fields.js';
import { refuseRepeatedOptions } from './commands/shared/repeatable-options.js';
import { guardIO, holdSecretsOf } from './secrets.js';
import { oneLine } from './output/one-line.js';

/** A bare group (`mailroom`, `mailroom keys`) prints its help to stdout with exit 0, as gh does, so `mailroom | less` works. */
class MailroomCommand extends Command {
  /** On the root: the context the commands were registered with, and the word after `--json` left to the command (takeJsonFields). */
  jsonWord?: { ctx: Context; word: string };

  override createCommand(name?: string): Command {
    return new MailroomCommand(name);
  }

  /**
   * One operand too many: when it is the word after `--json` (`check --json nope`, `webhooks get
   * wh_1 --json nope`), that word was a field list, which the command then checks like any other.
   */
  _excessArguments(received: string[]): void {
    let root: Command | null = this.parent;
    while (root?.parent) root = root.parent;
    const taken = (root as MailroomCommand | null)?.jsonWord;
    const at = taken === undefined ? -1 : this.args.lastIndexOf(taken.word);
    if (taken !== undefined && at >= 0 && taken.ctx.jsonFields === undefined && received.length === this.registeredArguments.length + 1) {
      this.args.splice(at, 1);
      taken.ctx.jsonFields = [taken.word];
      return;
    }
    // A group that also runs on its own (`sandbox workspace`): the word is a sub-command it lacks.
    if (this.commands.length > 0 && this.registeredArguments.length === 0) this.unknownCommand();
    const expected = this.registeredArguments;
    const takes = expected.length === 0 ? 'none' : `${expected.length === 1 ? 'one' : expected.length}, ${expected.map((a) => `<${a.name()}>`).join(' ')}`;
    const name = commandPath(this);
    this.error(`error: unexpected argument '${received[expected.length] ?? ''}': ${name} takes ${takes} (mailroom ${name} --help)`, { code: 'commander.excessArguments' });
  }

  override help(context?: HelpContext): never;
  override help(cb: (str: string) => string): never;
  override help(context?: HelpContext | ((str: string) => string)): never {
    if (typeof context === 'function') return super.help(context);
    return super.help(context?.error ? { ...context, error: false } : context);
  }

  /** Commander's "unknown command", pointing names people try from other CLIs at mailroom's own. */
  unknownCommand(): never {
    const name = this.args[0];
    const meant = this.parent === null && name !== undefined && Object.hasOwn(POINTERS, name) ? POINTERS[name] : undefined;
    if (meant) this.error(`error: unknown command '${name}' (did you mean ${meant}?)`, { code: 'commander.unknownCommand' });
    return (Command.prototype as unknown as { unknownCommand(this: Command): never }).unknownCommand.call(this);
  }
}

/** `webhooks get`: a command's names from under the root. */
function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let at: Command | null = cmd; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** Commands other CLIs have that mailroom answers under another name. */
const POINTERS: Readonly<Record<string, string>> = {
  status: 'doctor, or check for the key alone',
  auth: 'check, or doctor for everything',
  trigger: 'sandbox trigger',
};

/** Global options that take a value: the word after them is not the command name. */
const VALUE_OPTIONS = new Set(['--profile', '--api-key', '--api-key-file', '--base-url', '--workspace', '--timeout', '--max-retries']);

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
 * The command buildProgram registers for `args`: its name, undefined for all of them, null for
 * none. `completion` describes the whole tree; `--version` needs none of it.
 */
function commandsFor(args: readonly string[] | undefined): string | undefined | null {
  const name = args === undefined ? undefined : commandName(args);
  const versionOnly = name === undefined && args !== undefined && args.some((a) => a === '-V' || a === '--version') && !args.some((a) => a === '-h' || a === '--help');
  if (versionOnly) return null;
  return name === 'completion' ? undefined : name;
}

/** Loads the command definitions buildProgram(ctx, args) registers (all of them without `args`). */
export async function loadProgram(args?: readonly string[]): Promise<void> {
  const wanted = commandsFor(args);
  if (wanted !== null) await loadCommands(wanted);
}

/**
 * Builds the command tree (loadProgram first, with the same `args`): with `args`, only the command they name (all of them for the root help,
 * an unknown name, or no name), since command modules import their work lazily but Commander's
 * objects for every option of every command are not free.
 */
export function buildProgram(given: Context, args?: readonly string[], jsonWord?: string): Command {
  // Every command writes through the secret guard (secrets.ts), whoever built the context.
  const ctx: Context = { ...given, io: guardIO(given.io) };
  holdSecretsOf(ctx.env);
  const program = new MailroomCommand('mailroom')
    .description('Send transactional email, manage API keys and webhooks, and run a local sandbox of the SMASHSEND API.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addHelpCommand(false)
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      // Only help and the version come to stdout this way: examples and notes are fitted to the width
      // too. Help never goes to stderr (bare groups print it to stdout), so error lines stay one line.
      writeOut: (s) => void ctx.io.out.write(fitToWidth(s, helpWidth(ctx.io.outColumns))),
      writeErr: (s) => void ctx.io.err.write(s),
      // Help is never wider than HELP_WIDTH (narrower on a narrow terminal), so the help text is the
      // same on every wide terminal and through a pipe: bin/mailroom.js prints it from dist/help.json.
      getOutHelpWidth: () => helpWidth(ctx.io.outColumns),
      getErrHelpWidth: () => helpWidth(ctx.io.errColumns),
      // One line per usage error (docs/reference/exit-codes.md): Commander's "Did you mean" goes on the same line.
      // User input in the message (an option or argument) is escaped so the line stays one line.
      outputError: (s, write) => write(`${oneLine(s.replace(/^error: /, 'mailroom: ').replace(/\n\(Did you mean (.+?)\?\)/, ' (did you mean $1?)').replace(/\n$/, ''))}\n`),
    })
    .configureHelp(helpLayout)
    .option('--profile <name>', 'stored profile to use (env MAILROOM_PROFILE; default "default")')
    .option('--api-key <key>', 'API key for this call (env MAILROOM_API_KEY, SMASHSEND_API_KEY); argv is visible to other local users: prefer the env or --api-key-file')
    .option('--api-key-file <path|->', 'read the API key from a file, or - for stdin')
    .option('--base-url <url>', 'API host root (env MAILROOM_BASE_URL; default https://api.smashsend.com)')
    .option('--workspace <wrk_id>', 'workspace for keys commands (env MAILROOM_WORKSPACE)')
    .option('--sandbox', 'run this one command against a throw-away local sandbox (no account needed)')
    .option('--allow-http', 'send the API key over plain http:// to a host other than this machine without the warning (check refuses without it)')
    .option('--json', 'machine output: JSON on stdout; --json id,displayName keeps only those fields (of each item of a list)')
    .option('--jq <expression>', 'filter the JSON output through jq (strings print raw, as gh --jq); implies --json')
    .option('-q, --quiet', 'print nothing on success; exit code only')
    .option('-v, --verbose', 'log requests and responses to stderr, secrets redacted (env MAILROOM_DEBUG=1)')
    .option('--no-color', 'no colour (env NO_COLOR; FORCE_COLOR forces it)')
    .addOption(new Option('--timeout <ms>', 'per-request timeout in ms, or with a unit: 10s, 2m (default 30000; sandbox wait: how long to wait, default 10s)').argParser(parseDurationOption('--timeout', 1)))
    .addOption(new Option('--max-retries <n>', 'retries for retryable failures (default 3)').argParser(parseIntegerOption('--max-retries', 0, 20)));

  program.addHelpText(
    'after',
    `
Examples:
  $ mailroom sandbox                                  # local emulator, no account needed
  $ mailroom send --from you@example.com --to a@example.com --subject Hi --html '<p>Hi</p>'
  $ mailroom batch emails.ndjson --report report.ndjson
  $ mailroom check -q && ./deploy.sh

Exit codes: ${exitCodeLine()} (mailroom help exit-codes).
Environment variables and where settings come from: mailroom help environment.
Help for a command: mailroom help <command...>, or mailroom <command...> --help.`,
  );

  // --sandbox lives exactly as long as the command's action; the session module loads the sandbox lazily.
  program.hook('preAction', async (_root, action) => {
    const globals = action.optsWithGlobals<{ sandbox?: boolean; quiet?: boolean }>();
    if (!globals.sandbox) return;
    if (ctx.sandbox) return;
    const { openSandboxSession } = await import('./sandbox/session.js');
    ctx.sandbox = await openSandboxSession(ctx, ctx.io.isStderrTTY && !globals.quiet);
  });
  program.hook('postAction', async (_root, action) => {
    if (!action.optsWithGlobals<{ sandbox?: boolean }>().sandbox) return;
    const session = ctx.sandbox;
    delete ctx.sandbox;
    await session?.close();
  });

  if (jsonWord !== undefined) program.jsonWord = { ctx, word: jsonWord };
  const wanted = commandsFor(args);
  if (wanted !== null) registerCommands(program, ctx, wanted);
  // Sub-commands inherit the error/output handling of the root.
  for (const cmd of allCommands(program)) {
    cmd.exitOverride().configureOutput(program.configureOutput()).configureHelp(helpLayout).showSuggestionAfterError(true);
    refuseRepeatedOptions(cmd);
  }
  refuseRepeatedOptions(program);
  return program;
}

/** What `help` words ask for: a topic, a command's help, or something that is neither. */
export type HelpRequest = { topic: string } | { path: string[] } | { unknown: string };

/**
 * `mailroom help keys list`, `mailroom keys help list`: `help` after a command group (the root
 * included) asks for the help of the words after it (bin/mailroom.js reads argv the same way).
 * Undefined when the arguments are not such a request (options, or `help` as an operand).
 */
export function helpRequest(args: readonly string[], program: Command): HelpRequest | undefined {
  const given = args.at(-1) === '--help' || args.at(-1) === '-h' ? args.slice(0, -1) : args;
  const words = withoutGlobalOptions(given, program);
  if (words === undefined || words.some((w) => w.startsWith('-'))) return undefined;
  const at = words.indexOf('help');
  if (at < 0) return undefined;
  const group = find(program, words.slice(0, at));
  if (!group || group.commands.length === 0) return undefined;
  const rest = words.slice(at + 1);
  if (at === 0 && rest.length === 1 && Object.hasOwn(HELP_TOPICS, rest[0] as string)) return { topic: rest[0] as string };
  const path = [...words.slice(0, at), ...rest];
  return find(program, path) ? { path } : { unknown: path.join(' ') };
}

/**
 * The words without the root's own options (a script's `--no-color`, `--json`, `-q`, `--profile ci`),
 * which change nothing in a help screen; undefined when another option is among them.
 */
function withoutGlobalOptions(args: readonly string[], program: Command): string[] | undefined {
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith('-')) {
      words.push(arg);
      continue;
    }
    const name = arg.split('=')[0];
    const option = program.options.find((o) => o.long === name || o.short === name);
    if (!option) return undefined;
    if (option.required && !arg.includes('=')) i++;
  }
  return words;
}

function find(program: Command, path: readonly string[]): Command | undefined {
  let cmd: Command | undefined = program;
  for (const name of path) cmd = cmd?.commands.find((c) => c.name() === name);
  return cmd;
}

/** Parses `args` (the user's arguments) and runs the command they name; `help …` is answered first. */
export async function runCommandLine(ctx: Context, args: readonly string[]): Promise<void> {
  const { args: withoutJq, jq } = takeJq(args);
  const { args: rest, fields, candidate } = takeJsonFields(withoutJq, JSON_FIELD_WORDS);
  if (fields) ctx.jsonFields = fields;
  // Compiled before the command is built: a mistake in the expression costs no request.
  if (jq !== undefined) ctx.jq = await (await import('./output/jq.js')).compileJq(jq);
  let argv = rest;
  if (argv.includes('help')) {
    await loadProgram();
    const request = helpRequest(argv, buildProgram(ctx));
    if (request && 'topic' in request) {
      ctx.io.out.write((HELP_TOPICS[request.topic] as (width: number) => string)(helpWidth(ctx.io.outColumns)));
      return;
    }
    if (request && 'unknown' in request) {
      throw usageError(`no help for "${request.unknown}": not a command or a help topic`, [`see \`mailroom help\` for the commands, topics: ${Object.keys(HELP_TOPICS).join(', ')}`]);
    }
    if (request) argv = [...request.path, '--help'];
  }
  await loadProgram(argv);
  await buildProgram(ctx, argv, candidate).parseAsync(argv, { from: 'user' });
}

function* allCommands(cmd: Command): Generator<Command> {
  for (const sub of cmd.commands) {
    yield sub;
    yield* allCommands(sub);
  }
}
