import type { Command } from 'commander';
import type { Context } from '../context.js';
import { verb } from './verb.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('profiles')
    .description('list stored profiles and mark the active one (--profile, MAILROOM_PROFILE, else "default")')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom profiles
  $ MAILROOM_PROFILE=ci mailroom profiles --json`,
    )
    .action(verb(ctx, () => import('./profiles.run.js'), (): Record<string, never> => ({})));
}
