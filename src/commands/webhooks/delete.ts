import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { requireId } from '../../input/ids.js';
import { verb } from '../verb.js';
import type { WebhooksDeleteOptions } from './delete.run.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('delete')
    .description('delete a webhook; deliveries to it stop')
    .argument('<wh_id>', 'the webhook')
    .option('-y, --yes', 'do not ask for confirmation (required when no terminal is attached)')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom webhooks delete wh_123          # asks first on a terminal
  $ mailroom webhooks delete wh_123 --yes    # scripts and CI`,
    )
    .action(verb(ctx, () => import('./delete.run.js'), (flags: { yes?: boolean }, [id]): WebhooksDeleteOptions => ({ ...flags, id: requireId('webhook', id as string) })));
}
