import { z } from 'zod';
import { eventNameSchema } from './events.js';
import { tolerantEnum } from './common.js';

export const WEBHOOK_STATUSES = ['ACTIVE', 'PAUSED', 'BANNED'] as const;

export const webhookSchema = z.looseObject({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  token: z.string().optional(),
  createdAt: z.string(),
  displayName: z.string().optional(),
  status: tolerantEnum(WEBHOOK_STATUSES).optional(),
  workspaceId: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type Webhook = z.infer<typeof webhookSchema>;

const httpUrl = z.url({ protocol: /^https?$/ });

export const createWebhookRequestSchema = z.strictObject({
  url: httpUrl,
  events: z.array(eventNameSchema).min(1),
  token: z.string().min(8).max(256).optional(),
});
export type CreateWebhookRequest = z.infer<typeof createWebhookRequestSchema>;

export const updateWebhookRequestSchema = z.strictObject({
  events: z.array(eventNameSchema).min(1),
});
export type UpdateWebhookRequest = z.infer<typeof updateWebhookRequestSchema>;

/** The spec's paged list, or the flat array the real service has also been seen to send. */
export const webhookListResponseSchema = z.looseObject({
  webhooks: z.union([
    z.looseObject({ items: z.array(webhookSchema), hasMore: z.boolean().optional() }),
    z.array(webhookSchema),
  ]),
});
export const webhookResponseSchema = z.looseObject({ webhook: webhookSchema });
export const webhookDeleteResponseSchema = z.looseObject({ webhook: webhookSchema, isDeleted: z.literal(true) });

export function webhookListItems(body: z.infer<typeof webhookListResponseSchema>): Webhook[] {
  return Array.isArray(body.webhooks) ? body.webhooks : body.webhooks.items;
}
