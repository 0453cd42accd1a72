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
    const [{ listWebhooks }, { printWebhooks }] = await Promise.all([import('../../api/webhooks.js'), import('./view.js')]);
    await printWebhooks(ctx, globals, await listWebhooks(transport, { signal: ctx.signal }));
  } finally {
    await transport.close();
  }
}
