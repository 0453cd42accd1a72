import type { Command } from 'commander';
import { Option } from 'commander';
import type { Context, GlobalOptions } from '../../context.js';
import { parseIntegerOption } from '../../program.js';

export interface KeysListOptions {
  limit?: number;
  all?: boolean;
}

export function register(parent: Command, ctx: Context): void {
  parent
    .command('list')
    .description('list the workspace API keys (secrets masked)')
    .addOption(new Option('--limit <n>', 'keys per page (1-100; the API default is 15)').argParser(parseIntegerOption('--limit', 1, 100)))
    .option('--all', 'follow every page')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom keys list --workspace wrk_123
  $ mailroom keys list --all --json | jq -r '.[].id'`,
    )
    .action(async (opts: KeysListOptions, cmd: Command) => run(opts, cmd.optsWithGlobals<GlobalOptions>(), ctx));
}

export async function run(opts: KeysListOptions, globals: GlobalOptions, ctx: Context): Promise<void> {
  const { resolveSettings } = await import('../../config/settings.js');
  const { workspaceOf, printKeys } = await import('./shared.js');
  const workspaceId = workspaceOf(resolveSettings(ctx, globals));
  const { connect } = await import('../../client.js');
  const { transport } = await connect(ctx, globals);
  try {
    const { listKeys, listAllKeys } = await import('../../api/apiKeys.js');
    if (opts.all) {
      await printKeys(ctx, globals, await listAllKeys(transport, workspaceId, { limit: opts.limit ?? 100 }, { signal: ctx.signal }));
      return;
    }
    const page = await listKeys(transport, workspaceId, { limit: opts.limit }, { signal: ctx.signal });
    await printKeys(ctx, globals, page.items);
    if (page.hasMore && !globals.quiet) ctx.io.err.write('More keys exist: use --all (or a larger --limit) to see them.\n');
  } finally {
    await transport.close();
  }
}
