import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { requireId } from '../../input/ids.js';
import { verb } from '../verb.js';
import type { WebhooksGetOptions } from './get.run.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('get')
    .description('show one webhook (its token masked)')
    .argument('<wh_id>', 'the webhook')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom webhooks get wh_123
  $ mailroom webhooks get wh_123 --json | jq .events`,
    )
    .action(verb(ctx, () => import('./get.run.js'), (_flags: unknown, [id]): WebhooksGetOptions => ({ id: requireId('webhook', id as string) })));
}
