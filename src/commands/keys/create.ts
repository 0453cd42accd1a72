import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { verb } from '../verb.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('create')
    .description('create an API key; its secret is shown once')
    .requiredOption('--name <displayName>', 'a name for the key')
    .option('--role <role>', 'role of the key', 'API_USER')
    .option('--save-as <profile>', 'also store the new key in this profile')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom keys create --name deploy-bot
  $ mailroom keys create --name ci --save-as ci     # stored in profile "ci"; use with --profile ci

The full secret is printed once (stdout) and cannot be retrieved again; secrets of existing keys are always masked.
-q, or --json fields without secretKey, would lose it: refused unless --save-as keeps it.`,
    )
    .action(verb(ctx, () => import('./create.run.js')));
}
