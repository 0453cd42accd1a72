import type { CommandContext } from '../context.js';
import { apiClient } from '../shared/api-client.js';
import { printWebhook } from '../../output/resources.js';
import { oneLine } from '../../output/one-line.js';
import { confirmedDelete } from '../shared/confirmed-delete.js';

export interface WebhooksDeleteOptions {
  id: string;
  yes?: boolean;
}

export async function run(opts: WebhooksDeleteOptions, ctx: CommandContext): Promise<void> {
  await confirmedDelete(ctx, {
    id: opts.id,
    noun: 'webhook',
    question: async () => {
      const hook = await (await apiClient(ctx)).webhooks.get(opts.id, { signal: ctx.signal });
      return oneLine(`Delete webhook ${hook.id} (${hook.url}; ${hook.events.join(', ')})? Deliveries to it stop.`);
    },
    yes: opts.yes,
    remove: async () => (await apiClient(ctx)).webhooks.delete(opts.id, { signal: ctx.signal }),
    print: (hook) => printWebhook(ctx, ctx.globals, hook),
  });
}
