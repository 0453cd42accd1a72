import type { Command } from 'commander';
import type { Context, GlobalOptions } from '../../context.js';
import { repeatable } from '../repeatable.js';

export interface WebhooksUpdateOptions {
  event?: string[];
}

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
    .action(async (id: string, opts: WebhooksUpdateOptions, cmd: Command) => run(id, opts, cmd.optsWithGlobals<GlobalOptions>(), ctx));
}

export async function run(id: string, opts: WebhooksUpdateOptions, globals: GlobalOptions, ctx: Context): Promise<void> {
  const [{ requireId }, { parseEvents }] = await Promise.all([import('../../input/ids.js'), import('../../input/events.js')]);
  const webhookId = requireId('webhook', id);
  const events = parseEvents(opts.event);
  const { connect } = await import('../../client.js');
  const { transport } = await connect(ctx, globals);
  try {
    const [{ updateWebhook }, { printWebhook }] = await Promise.all([import('../../api/webhooks.js'), import('./view.js')]);
    await printWebhook(ctx, globals, await updateWebhook(transport, webhookId, { events }, { signal: ctx.signal }));
  } finally {
    await transport.close();
  }
}
