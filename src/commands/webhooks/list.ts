import type { Command } from 'commander';
import type { Context, GlobalOptions } from '../../context.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('list')
    .description("list the workspace's webhooks (tokens are never listed)")
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom webhooks list
  $ mailroom webhooks list --json | jq -r '.[] | "\\(.id) \\(.url)"'`,
    )
    .action(async (_opts: unknown, cmd: Command) => run(cmd.optsWithGlobals<GlobalOptions>(), ctx));
}

export async function run(globals: GlobalOptions, ctx: Context): Promise<void> {
  const { connect } = await import('../../client.js');
  const { transport } = await connect(ctx, globals);
  try {
    const [{ listWebhookPage }, { printWebhooks }] = await Promise.all([import('../../api/webhooks.js'), import('./view.js')]);
    const page = await listWebhookPage(transport, { signal: ctx.signal });
    await printWebhooks(ctx, globals, page.items);
    if (page.hasMore && !globals.quiet) ctx.io.err.write(`The API says more webhooks exist than the ${page.items.length} listed; it offers no way to fetch them.\n`);
  } finally {
    await transport.close();
  }
}
