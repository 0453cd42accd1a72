import { getWebhook } from '../../api/webhooks.js';
import type { CommandContext } from '../../client.js';
import { printWebhook } from '../../output/resources.js';

export interface WebhooksGetOptions {
  id: string;
}

export async function run(opts: WebhooksGetOptions, ctx: CommandContext): Promise<void> {
  await printWebhook(ctx, ctx.globals, await getWebhook(await ctx.api(), opts.id, { signal: ctx.signal }));
}
