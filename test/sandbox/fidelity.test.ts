import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { resolveConfig } from '../../src/sandbox/config.js';
import { Deliverer } from '../../src/sandbox/deliveries.js';
import { EmailService } from '../../src/sandbox/emails.js';
import { buildServer } from '../../src/sandbox/server.js';
import { SandboxState } from '../../src/sandbox/state.js';
import { webhookDeleteResponseSchema, webhookListResponseSchema, webhookResponseSchema } from '../../src/schema/index.js';

let app: FastifyInstance;
let state: SandboxState;
const auth = { authorization: 'Bearer sk_live_fidelity' };

beforeAll(async () => {
  state = SandboxState.fresh('sk_live_fidelity');
  const config = resolveConfig();
  const deliverer = new Deliverer(state, config.deliveries);
  const emails = new EmailService(state, config, { contactChanged: () => undefined, scheduled: () => undefined });
  app = await buildServer({ state, config, emails, deliverer, durable: async () => undefined, reset: () => undefined, log: () => undefined });
});
afterAll(() => app.close());

describe('webhook objects look like the real service', () => {
  test('create, get, update, list and delete carry status ACTIVE and the workspaceId; the client schemas read them', async () => {
    const workspaceId = state.workspace.id;
    const created = await app.inject({ method: 'POST', url: '/v1/webhooks', headers: auth, payload: { url: 'https://example.com/hook', events: ['CONTACT_CREATED'] } });
    expect(created.statusCode, created.body).toBe(200);
    const hook = created.json().webhook;
    expect(hook).toMatchObject({ status: 'ACTIVE', workspaceId });
    expect(webhookResponseSchema.parse(created.json()).webhook).toMatchObject({ status: 'ACTIVE', workspaceId });

    const got = await app.inject({ url: `/v1/webhooks/${hook.id}`, headers: auth });
    expect(got.json().webhook).toMatchObject({ status: 'ACTIVE', workspaceId });
    const updated = await app.inject({ method: 'POST', url: `/v1/webhooks/${hook.id}`, headers: auth, payload: { events: ['CONTACT_DELETED'] } });
    expect(updated.json().webhook).toMatchObject({ status: 'ACTIVE', workspaceId, events: ['CONTACT_DELETED'] });

    const list = await app.inject({ url: '/v1/webhooks', headers: auth });
    const item = webhookListResponseSchema.parse(list.json()).webhooks.items.find((w) => w.id === hook.id);
    expect(item).toMatchObject({ status: 'ACTIVE', workspaceId });
    expect(item).not.toHaveProperty('token');

    const deleted = await app.inject({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, headers: auth });
    expect(webhookDeleteResponseSchema.parse(deleted.json()).webhook).toMatchObject({ status: 'ACTIVE', workspaceId });
  });

  test('the client schemas accept displayName, status and workspaceId, and statuses the spec does not list', () => {
    const hook = { id: 'wh_1', url: 'https://x.test', events: ['EMAIL_OPEN'], createdAt: '2026-01-01T00:00:00Z' };
    const full = { ...hook, displayName: 'Prod hook', status: 'PAUSED', workspaceId: 'ws_1' };
    expect(webhookResponseSchema.parse({ webhook: full }).webhook).toMatchObject({ displayName: 'Prod hook', status: 'PAUSED', workspaceId: 'ws_1' });
    expect(webhookResponseSchema.parse({ webhook: { ...hook, status: 'DISABLED_BY_OPS' } }).webhook.status).toBe('DISABLED_BY_OPS');
  });
});
