import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { requireId } from '../../input/ids.js';
import { verb } from '../verb.js';
import type { KeysDeleteOptions } from './delete.run.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('delete')
    .description('delete an API key; it stops working at once for everyone using it')
    .argument('<aki_id>', 'the key to delete')
    .option('-y, --yes', 'do not ask for confirmation (required when no terminal is attached)')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom keys delete aki_123            # asks first on a terminal
  $ mailroom keys delete aki_123 --yes      # scripts and CI`,
    )
    .action(verb(ctx, () => import('./delete.run.js'), (flags: { yes?: boolean }, [id]): KeysDeleteOptions => ({ ...flags, id: requireId('apiKey', id as string) })));
}
