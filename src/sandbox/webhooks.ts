import { createWebhookRequestSchema, ID_PREFIX, updateWebhookRequestSchema } from '../schema/index.js';
import { HttpError } from './errors.js';
import { newId, randomToken, type SandboxState, type StoredWebhook } from './state.js';
import { parseBody } from './validation.js';

function view(hook: StoredWebhook) {
  return { id: hook.id, url: hook.url, events: hook.events, token: hook.token, createdAt: hook.createdAt };
}

function findWebhook(state: SandboxState, id: string): StoredWebhook {
  const hook = state.webhooks.get(id);
  if (!hook) throw new HttpError(404, `Webhook ${id} not found`);
  return hook;
}

/** The spec's list omits `token`; all webhooks fit on one page. */
export function listWebhooks(state: SandboxState) {
  const items = [...state.webhooks.values()].map((h) => ({ id: h.id, url: h.url, events: h.events, createdAt: h.createdAt }));
  return { webhooks: { items, hasMore: false } };
}

export function getWebhook(state: SandboxState, id: string) {
  return { webhook: view(findWebhook(state, id)) };
}

/** A token given at creation is kept and returned as given; otherwise one is generated. */
export function createWebhook(state: SandboxState, body: unknown) {
  const req = parseBody(createWebhookRequestSchema, body);
  const hook: StoredWebhook = {
    id: newId('webhook'),
    url: req.url,
    events: [...new Set(req.events)],
    token: req.token ?? `${ID_PREFIX.webhookToken}${randomToken(32)}`,
    createdAt: new Date().toISOString(),
  };
  state.saveWebhook(hook);
  return { webhook: view(hook) };
}

export function updateWebhook(state: SandboxState, id: string, body: unknown) {
  const hook = findWebhook(state, id);
  const req = parseBody(updateWebhookRequestSchema, body);
  hook.events = [...new Set(req.events)];
  state.saveWebhook(hook);
  return { webhook: view(hook) };
}

export function deleteWebhook(state: SandboxState, id: string) {
  const hook = findWebhook(state, id);
  state.deleteWebhook(hook);
  return { webhook: view(hook), isDeleted: true as const };
}
