import type { CommandContext } from '../context.js';
import { MailroomError } from '../../errors.js';
import type { ApiKey } from '../../schema/api-key.js';
import { apiClient } from '../shared/api-client.js';
import { printKey } from '../../output/resources.js';
import { oneLine } from '../../output/one-line.js';
import { confirmedDelete } from '../shared/confirmed-delete.js';
import { usedTheOldKey } from '../shared/rotate-key.js';
import { workspaceOf } from '../shared/workspace.js';

export interface KeysDeleteOptions {
  id: string;
  yes?: boolean;
}

export async function run(opts: KeysDeleteOptions, ctx: CommandContext): Promise<void> {
  const workspaceId = workspaceOf(ctx.settings());
  const used = ctx.settings().apiKey;
  const inUse = (key: ApiKey) => used !== undefined && usedTheOldKey(key, used.value);
  await confirmedDelete(ctx, {
    id: opts.id,
    noun: 'API key',
    // Named as rotate names it, found in the list (there is no GET of one key).
    question: async () => {
      const key = await findKey(ctx, workspaceId, opts.id);
      const what = inUse(key) ? `It is the key mailroom is using now (from ${used?.origin}): this command's own key, and anything else using it, stop working at once.` : 'Anything using it stops working at once.';
      return oneLine(`Delete API key ${key.id} "${key.displayName}" (${key.role})? ${what}`);
    },
    yes: opts.yes,
    remove: async () => (await apiClient(ctx, workspaceId)).apiKeys.delete(opts.id, { signal: ctx.signal }),
    print: (key) => printKey(ctx, ctx.globals, key),
    warnAfter: (key) => (inUse(key) ? `${key.id} was the key this command used (from ${used?.origin}): it no longer works; replace it there` : undefined),
  });
}

async function findKey(ctx: CommandContext, workspaceId: string, id: string): Promise<ApiKey> {
  for await (const key of (await apiClient(ctx, workspaceId)).apiKeys.list({ limit: 100 }, { signal: ctx.signal })) {
    if (key.id === id) return key;
  }
  throw new MailroomError('rejected', `no API key ${id} in workspace ${workspaceId}; nothing was deleted`);
}
