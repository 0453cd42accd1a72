import type { Command } from 'commander';
import type { Context, GlobalOptions } from '../../context.js';

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
    .action(async (id: string, _opts: unknown, cmd: Command) => run(id, cmd.optsWithGlobals<GlobalOptions>(), ctx));
}

export async function run(id: string, globals: GlobalOptions, ctx: Context): Promise<void> {
  const { requireId } = await import('../../input/ids.js');
  const webhookId = requireId('webhook', id);
  const { connect } = await import('../../client.js');
  const { transport } = await connect(ctx, globals);
  try {
    const [{ getWebhook }, { printWebhook }] = await Promise.all([import('../../api/webhooks.js'), import('./view.js')]);
    await printWebhook(ctx, globals, await getWebhook(transport, webhookId, { signal: ctx.signal }));
  } finally {
    await transport.close();
  }
}
