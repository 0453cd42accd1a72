import type { Command } from 'commander';
import type { Context } from '../context.js';
import { verb } from './verb.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('logout')
    .description('remove the stored API key of a profile (--profile, default "default")')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom logout
  $ mailroom logout --profile ci`,
    )
    .action(verb(ctx, () => import('./logout.run.js'), (): Record<string, never> => ({})));
}
