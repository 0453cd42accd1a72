import type { CommandContext } from '../context.js';
import { apiClient } from '../shared/api-client.js';
import { parseEvents } from '../../input/events.js';
import { printWebhook } from '../../output/resources.js';

export interface WebhooksUpdateOptions {
  id: string;
  event?: string[];
}

export async function run(opts: WebhooksUpdateOptions, ctx: CommandContext): Promise<void> {
  const events = parseEvents(opts.event);
  await printWebhook(ctx, ctx.globals, await (await apiClient(ctx)).webhooks.update(opts.id, { events }, { signal: ctx.signal }));
}
