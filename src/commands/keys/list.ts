import type { Command } from 'commander';
import { Option } from 'commander';
import type { Context, GlobalOptions } from '../../context.js';
import { usageError } from '../../errors.js';
import { parseIntegerOption } from '../options.js';

export interface KeysListOptions {
  limit?: number;
  all?: boolean;
  sort?: 'createdAt.asc' | 'createdAt.desc';
  startAt?: string;
}

const SORTS = ['createdAt.desc', 'createdAt.asc'] as const;

function checkStartAt(value: string | undefined): void {
  if (value !== undefined && (!/^\d{4}-\d\d-\d\dT/.test(value) || Number.isNaN(Date.parse(value)))) {
    throw usageError(`--start-at must be an ISO 8601 time, as a page's "startAt" gives it (e.g. 2026-11-23T10:00:00.000Z), not "${value}"`);
  }
}

export function register(parent: Command, ctx: Context): void {
  parent
    .command('list')
    .description('list the workspace API keys (secrets masked)')
    .addOption(new Option('--limit <n>', 'keys per page (1-100; the API default is 15)').argParser(parseIntegerOption('--limit', 1, 100)))
    .addOption(new Option('--sort <order>', 'order by creation time (default createdAt.desc)').choices(SORTS))
    .option('--start-at <time>', 'begin at this page ("startAt" of the previous page\'s JSON)')
    .option('--all', 'follow every page')
    .addHelpText(
      'after',
      `
JSON (piped or --json) is one page: { "items": [...], "hasMore", "startAt" }; with --all every key,
and hasMore false.

Examples:
  $ mailroom keys list --workspace wrk_123
  $ mailroom keys list --all --json | jq -r '.items[].id'
  $ mailroom keys list --limit 50 --start-at "$(jq -r .startAt page1.json)"`,
    )
    .action(async (opts: KeysListOptions, cmd: Command) => run(opts, cmd.optsWithGlobals<GlobalOptions>(), ctx));
}

export async function run(opts: KeysListOptions, globals: GlobalOptions, ctx: Context): Promise<void> {
  checkStartAt(opts.startAt);
  const { resolveSettings } = await import('../../config/settings.js');
  const { workspaceOf, printKeys } = await import('./shared.js');
  const workspaceId = workspaceOf(resolveSettings(ctx, globals));
  const { connect } = await import('../../client.js');
  const { transport } = await connect(ctx, globals);
  const query = { limit: opts.limit, sort: opts.sort, startAt: opts.startAt };
  try {
    const { listKeys, listAllKeys } = await import('../../api/apiKeys.js');
    if (opts.all) {
      const items = await listAllKeys(transport, workspaceId, { ...query, limit: opts.limit ?? 100 }, { signal: ctx.signal });
      await printKeys(ctx, globals, { items, hasMore: false, startAt: null });
      return;
    }
    const page = await listKeys(transport, workspaceId, query, { signal: ctx.signal });
    await printKeys(ctx, globals, page);
    if (page.hasMore && !globals.quiet) ctx.io.err.write(`More keys exist: use --all, or --start-at ${page.startAt} for the next page.\n`);
  } finally {
    await transport.close();
  }
}
