import type { Command } from 'commander';
import type { CommandContext } from './context.js';
import { bashScript } from '../completion/bash.js';
import { fishScript } from '../completion/fish.js';
import { completionTree } from '../completion/tree.js';
import { zshScript } from '../completion/zsh.js';
import { HELP_TOPICS } from '../help-topics.js';
import { KEY_ROLES } from '../schema/api-key.js';
import { EVENTS } from '../schema/events.js';

export interface CompletionOptions {
  shell: 'bash' | 'zsh' | 'fish';
  /** The whole command tree the script describes. */
  root: Command;
}

export async function run(opts: CompletionOptions, ctx: CommandContext): Promise<void> {
  ctx.io.out.write(completionScript(opts.shell, opts.root));
}

/** The script for `shell`, generated from the program's own command tree. */
function completionScript(shell: CompletionOptions['shell'], root: Command): string {
  const tree = completionTree(root, {
    events: Object.entries(EVENTS).map(([name, description]) => ({ name, description })),
    roles: KEY_ROLES.map((name) => ({ name })),
    helpTopics: Object.keys(HELP_TOPICS),
  });
  if (shell === 'bash') return bashScript(tree);
  if (shell === 'zsh') return zshScript(tree);
  return fishScript(tree);
}
