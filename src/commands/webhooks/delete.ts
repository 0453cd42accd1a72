import type { Command } from 'commander';
import type { Context, GlobalOptions } from '../../context.js';

export interface WebhooksDeleteOptions {
  yes?: boolean;
}

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
    .action(async (id: string, opts: WebhooksDeleteOptions, cmd: Command) => run(id, opts, cmd.optsWithGlobals<GlobalOptions>(), ctx));
}

export async function run(id: string, opts: WebhooksDeleteOptions, globals: GlobalOptions, ctx: Context): Promise<void> {
  const { requireId } = await import('../../input/ids.js');
  const webhookId = requireId('webhook', id);
  const { resolveSettings, requireApiKey } = await import('../../config/settings.js');
  const settings = resolveSettings(ctx, globals);
  requireApiKey(settings);
  const { confirmOrRefuse } = await import('../../input/confirm.js');
  await confirmOrRefuse(ctx, `Delete webhook ${webhookId}? Deliveries to it stop.`, `delete ${webhookId}`, opts.yes);
  const { createTransport } = await import('../../client.js');
  const transport = await createTransport(ctx, settings);
  try {
    const [{ deleteWebhook }, { printWebhook }] = await Promise.all([import('../../api/webhooks.js'), import('./view.js')]);
    const deleted = await deleteWebhook(transport, webhookId, { signal: ctx.signal });
    if (deleted === 'gone') {
      const { printDeletedWithoutAnswer } = await import('../../output/gone.js');
      await printDeletedWithoutAnswer(ctx, globals, webhookId, 'webhook');
      return;
    }
    await printWebhook(ctx, globals, deleted);
    if (!globals.quiet && ctx.io.isStdoutTTY && !globals.json) ctx.io.err.write(`Deleted ${deleted.id}.\n`);
  } finally {
    await transport.close();
  }
}
