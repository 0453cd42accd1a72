import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { requireId } from '../../input/ids.js';
import { verb } from '../verb.js';
import type { WebhooksUpdateOptions } from './update.run.js';
import { repeatable } from '../shared/repeatable-options.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('update')
    .description("replace a webhook's subscribed events")
    .argument('<wh_id>', 'the webhook')
    .option('--event <EVENT>', 'an event to subscribe to; repeatable or comma-separated (replaces the current list)', repeatable)
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom webhooks update wh_123 --event CONTACT_CREATED --event CONTACT_DELETED`,
    )
    .action(verb(ctx, () => import('./update.run.js'), (flags: Omit<WebhooksUpdateOptions, 'id'>, [id]): WebhooksUpdateOptions => ({ ...flags, id: requireId('webhook', id as string) })));
}
