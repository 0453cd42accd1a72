import type { Prompter } from '../context.js';

/** The real terminal: the question on stderr (stdout stays data), answers from stdin. */
export const terminalPrompter: Prompter = {
  async confirm(ctx, message) {
    const { default: confirm } = await import('@inquirer/confirm');
    return confirm({ message, default: false }, { input: ctx.io.in, output: ctx.io.err, signal: ctx.signal, clearPromptOnDone: false });
  },
  async password(ctx, message, validate) {
    const { default: password } = await import('@inquirer/password');
    return password({ message, validate }, { input: ctx.io.in, output: ctx.io.err });
  },
};
