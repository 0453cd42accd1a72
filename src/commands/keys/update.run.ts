import type { CommandContext } from '../context.js';
import { apiClient } from '../shared/api-client.js';
import { printKey } from '../../output/resources.js';
import { updateKeyRequestSchema } from '../../schema/index.js';
import { keyRequestBody } from '../shared/key-request-body.js';
import { workspaceOf } from '../shared/workspace.js';

export interface KeysUpdateOptions {
  id: string;
  name?: string;
  role?: string;
}

export async function run(opts: KeysUpdateOptions, ctx: CommandContext): Promise<void> {
  const body = keyRequestBody(updateKeyRequestSchema, { displayName: opts.name, role: opts.role }, 'update');
  const workspaceId = workspaceOf(ctx.settings());
  await printKey(ctx, ctx.globals, await (await apiClient(ctx, workspaceId)).apiKeys.update(opts.id, body, { signal: ctx.signal }));
}
