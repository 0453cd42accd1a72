import type { CommandContext } from '../../client.js';
import { apiClient } from '../shared/api-client.js';
import { printKey } from '../../output/resources.js';
import { confirmedDelete } from '../shared/confirmed-delete.js';
import { workspaceOf } from '../shared/workspace.js';

export interface KeysDeleteOptions {
  id: string;
  yes?: boolean;
}

export async function run(opts: KeysDeleteOptions, ctx: CommandContext): Promise<void> {
  const workspaceId = workspaceOf(ctx.settings());
  await confirmedDelete(ctx, {
    id: opts.id,
    noun: 'API key',
    question: `Delete API key ${opts.id}? Anything using it stops working at once.`,
    yes: opts.yes,
    remove: async () => (await apiClient(ctx, workspaceId)).apiKeys.delete(opts.id, { signal: ctx.signal }),
    print: (key) => printKey(ctx, ctx.globals, key),
  });
}
