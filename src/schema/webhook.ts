import { z } from 'zod';
import { eventNameSchema } from './events.js';
import { headerText, httpUrl, tolerantEnum, unset } from './common.js';

export const WEBHOOK_STATUSES = ['ACTIVE', 'PAUSED', 'BANNED'] as const;

export const webhookSchema = z.looseObject({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  token: unset(z.string()),
  createdAt: unset(z.string()),
  displayName: unset(z.string()),
  status: unset(tolerantEnum(WEBHOOK_STATUSES)),
  workspaceId: unset(z.string()),
  updatedAt: unset(z.string()),
});
export type Webhook = z.infer<typeof webhookSchema>;

export const createWebhookRequestSchema = z.strictObject({
  url: httpUrl,
  events: z.array(eventNameSchema).min(1),
  token: headerText.min(8).max(256).optional(),
});
export type CreateWebhookRequest = z.infer<typeof createWebhookRequestSchema>;

export const updateWebhookRequestSchema = z.strictObject({
  events: z.array(eventNameSchema).min(1),
});
export type UpdateWebhookRequest = z.infer<typeof updateWebhookRequestSchema>;

/**
 * The spec's paged list, or the flat array the real service has also been seen to send, read as a
 * page: one schema, so a bad item is reported by its path rather than as a failed union.
 */
export const webhookListResponseSchema = z.looseObject({
  webhooks: z.preprocess(
    (v) => (Array.isArray(v) ? { items: v } : v),
    z.looseObject({ items: z.array(webhookSchema), hasMore: unset(z.boolean()) }),
  ),
});
export const webhookResponseSchema = z.looseObject({ webhook: webhookSchema });
export const webhookDeleteResponseSchema = z.looseObject({ webhook: webhookSchema, isDeleted: z.literal(true) });
