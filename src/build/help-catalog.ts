import { PassThrough, type Writable } from 'node:stream';
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { HELP_TOPICS } from '../help-topics.js';
import { buildProgram, loadProgram, runCommandLine } from '../program.js';
import { VERSION } from '../version.js';

/** What one invocation printed: the text on each stream (the exit code is always 0). */
export interface HelpScreen {
  out: string;
  err: string;
}

/**
 * Every help screen, keyed by the argv that asks for it (`""`, `"keys"`, `"--help"`, `"keys list
 * --help"`, `"help exit-codes"`), as the full program prints it when the output is not a terminal
 * narrower than the help width, and the command groups (`""`, `"keys"`: commands with sub-commands),
 * after which `help <command...>` asks for a command's help. The build writes it to dist/help.json so
 * bin/mailroom.js can answer help without loading Commander.
 */
export interface HelpCatalog {
  version: string;
  groups: string[];
  screens: Record<string, HelpScreen>;
}

export async function renderHelpCatalog(): Promise<HelpCatalog> {
  const screens: Record<string, HelpScreen> = {};
  await loadProgram();
  const commands = commandPaths(buildProgram(captureContext().ctx));
  const groups = commands.filter(({ cmd }) => cmd.commands.length > 0);
  const requests = [
    ...commands.map(({ path }) => [...path, '--help']),
    // A bare group without an action or default sub-command prints its help (`mailroom`, `mailroom keys`).
    ...groups.filter(({ cmd }) => !hasAction(cmd)).map(({ path }) => path),
    ...Object.keys(HELP_TOPICS).map((topic) => ['help', topic]),
  ];
  for (const args of requests) screens[args.join(' ')] = await invoke(args);
  return { version: VERSION, groups: groups.map(({ path }) => path.join(' ')), screens };
}

/** One entry per command of the tree, root first, in `--help` order: its words, description and usage. */
export interface CommandEntry {
  path: string[];
  description: string;
  usage: string;
  subcommands: string[];
}

/** The command tree the catalog renders, as plain data (the reference pages and the man page list it); after renderHelpCatalog. */
export function commandEntries(): CommandEntry[] {
  return commandPaths(buildProgram(captureContext().ctx)).map(({ path, cmd }) => ({
    path,
    description: cmd.description(),
    usage: cmd.usage(),
    subcommands: cmd.commands.map((sub) => sub.name()),
  }));
}

function commandPaths(cmd: Command, path: string[] = []): { path: string[]; cmd: Command }[] {
  return [{ path, cmd }, ...cmd.commands.flatMap((sub) => commandPaths(sub, [...path, sub.name()]))];
}

/** The command does something bare: an action of its own, or a default sub-command (`batch journals` lists). */
const hasAction = (cmd: Command) => {
  const c = cmd as unknown as { _actionHandler: unknown; _defaultCommandName: unknown };
  return c._actionHandler != null || c._defaultCommandName != null;
};

async function invoke(args: string[]): Promise<HelpScreen> {
  const { ctx, screen } = captureContext();
  try {
    await runCommandLine(ctx, args);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== 'commander.helpDisplayed' && code !== 'commander.help') throw err;
    return screen;
  }
  if (args[0] === 'help' && screen.out !== '') return screen;
  throw new Error(`mailroom ${args.join(' ')} printed no help`);
}

function captureContext(): { ctx: Context; screen: HelpScreen } {
  const screen: HelpScreen = { out: '', err: '' };
  const sink = (key: keyof HelpScreen) =>
    ({
      write: (s: string) => {
        screen[key] += s;
        return true;
      },
    }) as unknown as Writable;
  const ctx = {
    io: { out: sink('out'), err: sink('err'), in: new PassThrough(), isStdoutTTY: false, isStderrTTY: false, isStdinTTY: false, color: false },
    env: {},
    cwd: '/',
    signal: new AbortController().signal,
  } satisfies Context;
  return { ctx, screen };
}
