import type { Command } from 'commander';
import type { CommandContext } from './context.js';
import type { Context, Globals } from '../context.js';
import { checkJsonFields, commandPath } from './shared/json-fields.js';

/** What a verb's action loads: one module whose `run` does the work, with static imports inside it. */
export interface VerbModule<O> {
  run(opts: O, ctx: CommandContext): Promise<void>;
}

/**
 * The action of every verb (docs/internals.md, "The verb shape"): builds the verb's options
 * from argv in one place (`options` gets Commander's flags, the positional operands and the command), loads the
 * verb's run module, and calls `run(opts, ctx)` with the command context (src/commands/context.ts), built
 * here from the parsed global options so that its type guarantees `globals`, `settings()`,
 * `api()` and `prompter` to every run. A `--json` field list is checked here, before anything is sent.
 */
export function verb<O, F = O>(ctx: Context, load: () => Promise<VerbModule<O>>, options: (flags: F, operands: string[], cmd: Command) => O = (flags) => flags as unknown as O) {
  return async (...args: unknown[]): Promise<void> => {
    const cmd = args.at(-1) as Command;
    const flags = args.at(-2) as F;
    checkJsonFields(commandPath(cmd), ctx.jsonFields, ctx.jq !== undefined);
    const operands = args.slice(0, -2).flatMap((a) => (a === undefined ? [] : Array.isArray(a) ? (a as string[]) : [a as string]));
    const opts = options(flags, operands, cmd);
    const [{ run }, { commandContext }] = await Promise.all([load(), import('./context.js')]);
    await run(opts, commandContext(ctx, cmd.optsWithGlobals<Globals>()));
  };
}
