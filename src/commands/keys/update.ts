import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import { requireId } from '../../input/ids.js';
import { verb } from '../verb.js';
import type { KeysUpdateOptions } from './update.run.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('update')
    .description('rename an API key or change its role (the secret cannot change)')
    .argument('<aki_id>', 'the key to update')
    .option('--name <displayName>', 'new name')
    .option('--role <role>', 'new role')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom keys update aki_123 --name deploy-bot-2
  $ mailroom keys update aki_123 --role API_USER --json`,
    )
    .action(
      verb(ctx, () => import('./update.run.js'), (flags: Omit<KeysUpdateOptions, 'id'>, [id]) => {
        const opts = { ...flags, id: requireId('apiKey', id as string) };
        if (opts.name === undefined && opts.role === undefined) throw usageError('nothing to update: give --name and/or --role');
        return opts;
      }),
    );
}
