import { createWebhookRequestSchema, ID_PREFIX, updateWebhookRequestSchema } from '../schema/index.js';
import { HttpError } from './errors.js';
import { newId, randomToken, type SandboxState, type StoredWebhook } from './state.js';
import { parseBody } from './validation.js';

/** The real service also sends `status` and `workspaceId`; clients written against it may rely on them. */
function listed(state: SandboxState, hook: StoredWebhook) {
  return { id: hook.id, url: hook.url, events: hook.events, status: 'ACTIVE' as const, workspaceId: state.workspace.id, createdAt: hook.createdAt };
}

function view(state: SandboxState, hook: StoredWebhook) {
  return { ...listed(state, hook), token: hook.token };
}

function findWebhook(state: SandboxState, id: string): StoredWebhook {
  const hook = state.webhooks.get(id);
  if (!hook) throw new HttpError(404, `Webhook ${id} not found`);
  return hook;
}

/** The spec's list omits `token`; all webhooks fit on one page. */
export function listWebhooks(state: SandboxState) {
  const items = [...state.webhooks.values()].map((h) => listed(state, h));
  return { webhooks: { items, hasMore: false } };
}

export function getWebhook(state: SandboxState, id: string) {
  return { webhook: view(state, findWebhook(state, id)) };
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
  return { webhook: view(state, hook) };
}

export function updateWebhook(state: SandboxState, id: string, body: unknown) {
  const hook = findWebhook(state, id);
  const req = parseBody(updateWebhookRequestSchema, body);
  hook.events = [...new Set(req.events)];
  state.saveWebhook(hook);
  return { webhook: view(state, hook) };
}

export function deleteWebhook(state: SandboxState, id: string) {
  const hook = findWebhook(state, id);
  state.deleteWebhook(hook);
  return { webhook: view(state, hook), isDeleted: true as const };
}
