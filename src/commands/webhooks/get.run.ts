import type { CommandContext } from '../context.js';
import { apiClient } from '../shared/api-client.js';
import { printWebhook } from '../../output/resources.js';

export interface WebhooksGetOptions {
  id: string;
}

export async function run(opts: WebhooksGetOptions, ctx: CommandContext): Promise<void> {
  await printWebhook(ctx, ctx.globals, await (await apiClient(ctx)).webhooks.get(opts.id, { signal: ctx.signal }));
}
