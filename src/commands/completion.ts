import { Argument, type Command } from 'commander';
import type { Context } from '../context.js';
import { choiceParser } from '../input/choice.js';
import type { CompletionOptions } from './completion.run.js';
import { verb } from './verb.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;

export function register(parent: Command, ctx: Context): void {
  parent
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS).argParser(choiceParser('shell', SHELLS)))
    .addHelpText(
      'after',
      `
Examples:
  # bash: add this line to ~/.bashrc
  $ source <(mailroom completion bash)
  # zsh: into $fpath, for the next shell (or source it from ~/.zshrc)
  $ mailroom completion zsh > "\${fpath[1]}/_mailroom"
  # fish
  $ mailroom completion fish > ~/.config/fish/completions/mailroom.fish

Completes commands, options (with descriptions in zsh and fish), files where a file is expected,
option and operand values, and the stored profile names after --profile.`,
    )
    .action(
      verb(ctx, () => import('./completion.run.js'), (_flags: unknown, [shell], cmd): CompletionOptions => {
        let root = cmd;
        while (root.parent) root = root.parent;
        return { shell: shell as CompletionOptions['shell'], root };
      }),
    );
}
