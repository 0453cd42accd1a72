import type { Context } from '../context.js';
import { interruptedError, usageError, ValidationError } from '../errors.js';

/**
 * Destructive commands ask on a terminal and refuse without `--yes` when there is none to ask
 * (docs/reference/exit-codes.md): a script must say what it means. The prompt goes to stderr; stdout stays data.
 */
export async function confirmOrRefuse(ctx: Context, question: string, what: string, yes: boolean | undefined): Promise<void> {
  if (yes) return;
  refuseWithoutTerminal(ctx, what, yes);
  const prompter = ctx.prompter ?? (await import('./prompter.js')).terminalPrompter;
  let answer: boolean;
  try {
    answer = await prompter.confirm(ctx, question);
  } catch (err) {
    // Ctrl-C (the prompt reads the terminal raw, so it arrives as a key, not SIGINT) stops like any
    // other first Ctrl-C; a closed stdin is a refusal. Either way nothing was done.
    if (ctx.signal.aborted || (err instanceof Error && err.name === 'ExitPromptError')) throw interruptedError(`did not ${what}`);
    throw new ValidationError(`cancelled: did not ${what}`);
  }
  if (!answer) throw new ValidationError(`cancelled: did not ${what}`);
}

/**
 * The off-terminal half of confirmOrRefuse, for a command that must look something up before it
 * can ask (the question names it) but should refuse before sending anything when it cannot ask.
 */
export function refuseWithoutTerminal(ctx: Context, what: string, yes: boolean | undefined): void {
  if (yes) return;
  if (!ctx.io.isStdinTTY || !ctx.io.isStderrTTY) throw usageError(`refusing to ${what} without --yes (no terminal to confirm on)`);
}
