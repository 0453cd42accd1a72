import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { verb } from '../verb.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('list')
    .description("list the workspace's webhooks (tokens are never listed)")
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom webhooks list
  $ mailroom webhooks list --json | jq -r '.items[] | "\\(.id) \\(.url)"'`,
    )
    .action(verb(ctx, () => import('./list.run.js'), (): Record<string, never> => ({})));
}
