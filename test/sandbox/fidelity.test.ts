import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { resolveConfig } from '../../src/sandbox/config.js';
import { Deliverer } from '../../src/sandbox/deliveries.js';
import { EmailService } from '../../src/sandbox/emails.js';
import { buildServer } from '../../src/sandbox/server.js';
import { SandboxState } from '../../src/sandbox/state.js';
import { REACT_EMAIL_LIKE, REACT_EMAIL_LIKE_TEXT } from '../fixtures/react-email-like.js';
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

describe('sendAt: every ISO 8601 date-time with an explicit zone', () => {
  // A day ahead, written without seconds and in every zone form ISO 8601 allows.
  const day = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const send = (sendAt: string) =>
    app.inject({ method: 'POST', url: '/v1/emails', headers: auth, payload: { from: 'a@example.com', to: 'b@example.com', subject: 's', html: 'h', sendAt } });

  test.each([
    [`${day}T09:00Z`, `${day}T09:00:00.000Z`],
    [`${day}T09:00:00Z`, `${day}T09:00:00.000Z`],
    [`${day}T09:00:00.5Z`, `${day}T09:00:00.500Z`],
    [`${day}T10:00+01:00`, `${day}T09:00:00.000Z`],
    [`${day}T10:00:00+0100`, `${day}T09:00:00.000Z`],
    [`${day}T10:00+01`, `${day}T09:00:00.000Z`],
    [`${day}T07:30:00.123-01:30`, `${day}T09:00:00.123Z`],
  ])('%s is scheduled for %s', async (sendAt, utc) => {
    const res = await send(sendAt);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().email).toMatchObject({ status: 'SCHEDULED' });
    expect(state.emailsById.get(res.json().email.id)?.sendAt).toBe(utc);
  });

  test.each([
    [`${day}T09:00`, 'sendAt needs a time zone (Z or +hh:mm)'],
    [`${day}T09:00:00`, 'sendAt needs a time zone (Z or +hh:mm)'],
    [day, 'sendAt needs a time of day and a time zone'],
    [`${day}T25:00Z`, 'sendAt is not a valid date and time'],
    ['tomorrow', 'sendAt is not an ISO 8601 date and time'],
  ])('%s is refused: %s', async (sendAt, message) => {
    const res = await send(sendAt);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain(message);
  });
});

describe('the text of an email sent with only html', () => {
  test('raw and templated: the text the API keeps and the inbox preview read as text, not markup', async () => {
    const raw = await app.inject({ method: 'POST', url: '/v1/emails', headers: auth, payload: { from: 'a@example.com', to: 'text@example.com', subject: 'Receipt', html: REACT_EMAIL_LIKE } });
    expect(raw.statusCode, raw.body).toBe(200);
    const stored = await app.inject({ url: `/_sandbox/emails/${raw.json().email.id}` });
    expect(stored.json().email.text).toBe(REACT_EMAIL_LIKE_TEXT);

    const templated = await app.inject({ method: 'POST', url: '/v1/emails', headers: auth, payload: { template: 'welcome', to: 'text2@example.com', variables: { name: 'Zoë & <Co>' } } });
    const welcome = await app.inject({ url: `/_sandbox/emails/${templated.json().email.id}` });
    expect(welcome.json().email.text).toBe('Hi Zoë & <Co>, welcome aboard!');

    const inbox = await app.inject({ url: '/?q=text@example.com', headers: { accept: 'text/html' } });
    const preview = /<span class="preview">([^<]*)<\/span>/.exec(inbox.body)?.[1];
    // One line (white space, no-break spaces included, collapsed), the first 140 characters.
    expect(preview).toBe('CAFÉ ORDER © 2026 Line A &amp; more text Line B Cell1 Cell2 * one * two 1. first 2. second View your order https://shop.example.com/orders/42 or…');
  });

  test('the inbox preview never splits a character: 140 code points, not UTF-16 units', async () => {
    const text = `${'😀'.repeat(139)}ab`;
    const sent = await app.inject({ method: 'POST', url: '/v1/emails', headers: auth, payload: { from: 'a@example.com', to: 'emoji@example.com', subject: 's', html: '<p>x</p>', text } });
    expect(sent.statusCode).toBe(200);
    const inbox = await app.inject({ url: '/?q=emoji@example.com', headers: { accept: 'text/html' } });
    expect(/<span class="preview">([^<]*)<\/span>/.exec(inbox.body)?.[1]).toBe(`${'😀'.repeat(139)}a…`);
  });
});
