import type { CreateWebhookRequest, UpdateWebhookRequest, Webhook } from '../schema/index.js';
import { webhookDeleteResponseSchema, webhookListResponseSchema, webhookResponseSchema } from '../schema/index.js';
import { holdSecret } from '../secrets.js';
import type { Transport } from '../transport/index.js';
import { paths } from './paths.js';
import { callOptions, deleteRequest, parseBody, type CallOptions } from './request.js';

export interface WebhookPage {
  items: Webhook[];
  /** The API says more exist; the spec shows no way to ask for them. */
  hasMore: boolean;
}

/** GET /v1/webhooks: accepts the spec's page and the flat array the real service also sends. */
export async function listWebhookPage(t: Transport, opts: CallOptions = {}): Promise<WebhookPage> {
  const res = await t.request({ method: 'GET', path: paths.webhooks(), ...callOptions(opts) });
  const { webhooks } = parseBody(webhookListResponseSchema, res, 'webhook list');
  return { items: webhooks.items, hasMore: webhooks.hasMore === true };
}

export async function getWebhook(t: Transport, id: string, opts: CallOptions = {}): Promise<Webhook> {
  const res = await t.request({ method: 'GET', path: paths.webhook(id), ...callOptions(opts) });
  return parseBody(webhookResponseSchema, res, 'webhook get').webhook;
}

export async function createWebhook(t: Transport, body: CreateWebhookRequest, opts: CallOptions = {}): Promise<Webhook> {
  // A token of the caller's own is a secret from here on, whatever its shape and whatever a server echoes.
  holdSecret(body.token);
  const res = await t.request({ method: 'POST', path: paths.webhooks(), body, ...callOptions(opts) });
  return parseBody(webhookResponseSchema, res, 'webhook create').webhook;
}

export async function updateWebhook(t: Transport, id: string, body: UpdateWebhookRequest, opts: CallOptions = {}): Promise<Webhook> {
  const res = await t.request({ method: 'POST', path: paths.webhook(id), body, ...callOptions(opts) });
  return parseBody(webhookResponseSchema, res, 'webhook update').webhook;
}

/** `'gone'` when the answer was lost and a retry found the webhook already deleted (see deleteRequest). */
export async function deleteWebhook(t: Transport, id: string, opts: CallOptions = {}): Promise<Webhook | 'gone'> {
  const res = await deleteRequest(t, paths.webhook(id), opts);
  return res === 'gone' ? res : parseBody(webhookDeleteResponseSchema, res, 'webhook delete').webhook;
}
