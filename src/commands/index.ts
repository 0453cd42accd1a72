import type { Command } from 'commander';
import type { Context } from '../context.js';

/** What a command module gives the program: its definition, registered on the root. */
interface CommandModule {
  register(program: Command, ctx: Context): void;
}

/**
 * Top-level command names, in the order `mailroom --help` lists them, each loaded on demand: a
 * command's definition (and what only it imports) costs start-up time to every other command.
 */
const LOADERS = {
  send: () => import('./send.js'),
  batch: () => import('./batch.js'),
  lint: () => import('./lint.js'),
  check: () => import('./check.js'),
  doctor: () => import('./doctor.js'),
  whoami: () => import('./whoami.js'),
  keys: () => import('./keys/index.js'),
  webhooks: () => import('./webhooks/index.js'),
  sandbox: () => import('./sandbox/index.js'),
  login: () => import('./login.js'),
  logout: () => import('./logout.js'),
  config: () => import('./config.js'),
  profiles: () => import('./profiles.js'),
  api: () => import('./api.js'),
  completion: () => import('./completion.js'),
} satisfies Record<string, () => Promise<CommandModule>>;

type CommandName = keyof typeof LOADERS;

const loaded = new Map<CommandName, CommandModule>();

/** The commands `only` picks: the one it names, or all of them (none named, or an unknown name). */
function picked(only: string | undefined): CommandName[] {
  return only !== undefined && Object.hasOwn(LOADERS, only) ? [only as CommandName] : (Object.keys(LOADERS) as CommandName[]);
}

/** Loads the definitions registerCommands(…, only) registers; call it first (buildProgram is synchronous). */
export async function loadCommands(only?: string): Promise<void> {
  await Promise.all(
    picked(only).map(async (name) => {
      if (!loaded.has(name)) loaded.set(name, await LOADERS[name]());
    }),
  );
}

/**
 * Registers every command, or only `only` when it names one: building the whole tree (~40
 * commands, ~250 options) costs more start-up time than `mailroom check` may spend in all.
 */
export function registerCommands(program: Command, ctx: Context, only?: string): void {
  for (const name of picked(only)) {
    const mod = loaded.get(name);
    if (!mod) throw new Error(`the "${name}" command is not loaded: await loadCommands() before building the program`);
    mod.register(program, ctx);
  }
}
