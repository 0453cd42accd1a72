import { Argument, type Command } from 'commander';
import type { Context } from '../context.js';
import { choiceParser } from '../input/choice.js';

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
    .action(async (shell: (typeof SHELLS)[number], _opts: unknown, cmd: Command) => {
      let root = cmd;
      while (root.parent) root = root.parent;
      ctx.io.out.write(await completionScript(shell, root));
    });
}

/** The script for `shell`, generated from the program's own command tree. */
export async function completionScript(shell: (typeof SHELLS)[number], root: Command): Promise<string> {
  const [{ completionTree }, { EVENTS }, { KEY_ROLES }, { HELP_TOPICS }] = await Promise.all([
    import('../completion/tree.js'),
    import('../schema/events.js'),
    import('../schema/api-key.js'),
    import('../help-topics.js'),
  ]);
  const tree = completionTree(root, {
    events: Object.entries(EVENTS).map(([name, description]) => ({ name, description })),
    roles: KEY_ROLES.map((name) => ({ name })),
    helpTopics: Object.keys(HELP_TOPICS),
  });
  if (shell === 'bash') return (await import('../completion/bash.js')).bashScript(tree);
  if (shell === 'zsh') return (await import('../completion/zsh.js')).zshScript(tree);
  return (await import('../completion/fish.js')).fishScript(tree);
}
