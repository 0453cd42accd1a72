import * as z from 'zod';
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
 * What the service accepts beyond what mailroom sends (the official SDK's shapes): a create may
 * name the webhook (`displayName`, or the older `description`); an update may change `url`,
 * `token`, `status` and the name besides `events`. The sandbox takes these; the CLI keeps to the spec.
 */
const webhookName = headerText.max(256);
export const serviceCreateWebhookSchema = createWebhookRequestSchema.extend({ displayName: webhookName.optional(), description: webhookName.optional() });
export const serviceUpdateWebhookSchema = z
  .strictObject({
    events: z.array(eventNameSchema).min(1).optional(),
    url: httpUrl.optional(),
    token: headerText.min(8).max(256).optional(),
    status: z.enum(WEBHOOK_STATUSES).optional(),
    displayName: webhookName.optional(),
    description: webhookName.optional(),
  })
  .refine((r) => Object.values(r).some((v) => v !== undefined), { message: 'give at least one of events, url, token, status, displayName, description' });

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
