import type { CommandContext } from '../context.js';
import type { ApiKey } from '../../types.js';
import { apiClient } from '../shared/api-client.js';
import { printKeys } from '../../output/resources.js';
import { workspaceOf } from '../shared/workspace.js';
import { oneLine } from '../../output/one-line.js';

export interface KeysListOptions {
  limit?: number;
  all?: boolean;
  sort?: 'createdAt.asc' | 'createdAt.desc';
  startAt?: string;
}

export async function run(opts: KeysListOptions, ctx: CommandContext): Promise<void> {
  const workspaceId = workspaceOf(ctx.settings());
  const client = await apiClient(ctx, workspaceId);
  const query = { limit: opts.limit, sort: opts.sort, startAt: opts.startAt };
  if (opts.all) {
    const items: ApiKey[] = [];
    for await (const key of client.apiKeys.list({ ...query, limit: opts.limit ?? 100 }, { signal: ctx.signal })) items.push(key);
    await printKeys(ctx, ctx.globals, { items, hasMore: false, startAt: null });
    return;
  }
  const page = await client.apiKeys.list(query, { signal: ctx.signal });
  await printKeys(ctx, ctx.globals, page);
  if (page.hasMore && !ctx.globals.quiet) ctx.io.err.write(`More keys exist: use --all, or --start-at ${oneLine(String(page.startAt))} for the next page.\n`);
}
