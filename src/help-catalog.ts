import { PassThrough, type Writable } from 'node:stream';
import type { Command } from 'commander';
import type { Context } from './context.js';
import { buildProgram } from './program.js';
import { VERSION } from './version.js';

/** What one invocation printed: the text on each stream (the exit code is always 0). */
export interface HelpScreen {
  out: string;
  err: string;
}

/**
 * Every help screen, keyed by the argv that asks for it (`""`, `"--help"`, `"keys list --help"`), as
 * the full program prints it when the output is not a terminal narrower than the help width. The build
 * writes it to dist/help.json so bin/mailroom.js can answer `--help` without loading Commander.
 */
export interface HelpCatalog {
  version: string;
  screens: Record<string, HelpScreen>;
}

export async function renderHelpCatalog(): Promise<HelpCatalog> {
  const screens: Record<string, HelpScreen> = {};
  const paths = commandPaths(buildProgram(captureContext().ctx));
  // `mailroom` alone prints the root help (to stderr); a bare sub-command may have an action of its own.
  for (const args of [[], ...paths.map((path) => [...path, '--help'])]) screens[args.join(' ')] = await invoke(args);
  return { version: VERSION, screens };
}

function commandPaths(cmd: Command, path: string[] = []): string[][] {
  return [path, ...cmd.commands.flatMap((sub) => commandPaths(sub, [...path, sub.name()]))];
}

async function invoke(args: string[]): Promise<HelpScreen> {
  const { ctx, screen } = captureContext();
  try {
    await buildProgram(ctx, args).parseAsync(['node', 'mailroom', ...args]);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== 'commander.helpDisplayed' && code !== 'commander.help') throw err;
    return screen;
  }
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
