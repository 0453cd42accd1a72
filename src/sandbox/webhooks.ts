import { ID_PREFIX, serviceCreateWebhookSchema, serviceUpdateWebhookSchema } from '../schema/index.js';
import { HttpError } from './http-errors.js';
import { newId, randomToken, type SandboxState, type StoredWebhook } from './state.js';
import { parseBody } from './validation.js';

/** The real service also sends `status` and `workspaceId`; clients written against it may rely on them. */
function listed(state: SandboxState, hook: StoredWebhook) {
  return {
    id: hook.id,
    url: hook.url,
    events: hook.events,
    ...(hook.displayName === undefined ? {} : { displayName: hook.displayName }),
    ...(hook.description === undefined ? {} : { description: hook.description }),
    status: hook.status ?? 'ACTIVE',
    workspaceId: state.workspace.id,
    createdAt: hook.createdAt,
    ...(hook.updatedAt === undefined ? {} : { updatedAt: hook.updatedAt }),
  };
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
  const req = parseBody(serviceCreateWebhookSchema, body);
  const hook: StoredWebhook = {
    id: newId('webhook'),
    url: req.url,
    events: [...new Set(req.events)],
    token: req.token ?? `${ID_PREFIX.webhookToken}${randomToken(32)}`,
    createdAt: new Date().toISOString(),
  };
  if (req.displayName !== undefined) hook.displayName = req.displayName;
  if (req.description !== undefined) hook.description = req.description;
  state.saveWebhook(hook);
  return { webhook: view(state, hook) };
}

export function updateWebhook(state: SandboxState, id: string, body: unknown) {
  const hook = findWebhook(state, id);
  const req = parseBody(serviceUpdateWebhookSchema, body);
  if (req.events !== undefined) hook.events = [...new Set(req.events)];
  if (req.url !== undefined) hook.url = req.url;
  if (req.token !== undefined) hook.token = req.token;
  if (req.status !== undefined) hook.status = req.status;
  if (req.displayName !== undefined) hook.displayName = req.displayName;
  if (req.description !== undefined) hook.description = req.description;
  hook.updatedAt = new Date().toISOString();
  state.saveWebhook(hook);
  return { webhook: view(state, hook) };
}

export function deleteWebhook(state: SandboxState, id: string) {
  const hook = findWebhook(state, id);
  state.deleteWebhook(hook);
  return { webhook: view(state, hook), isDeleted: true as const };
}
