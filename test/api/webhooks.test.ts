import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebhook, deleteWebhook, getWebhook, listWebhookPage, updateWebhook } from '../../src/api/webhooks.js';
import { expectedHeaders, mockApi } from './mock.js';

let api: ReturnType<typeof mockApi>;
beforeEach(() => {
  api = mockApi();
});
afterEach(async () => {
  api.agent.assertNoPendingInterceptors();
  await api.close();
});

const hook = (extra: Record<string, unknown> = {}) => ({
  id: 'wh_1',
  url: 'https://hooks.example.com/in',
  events: ['CONTACT_CREATED'],
  token: 'wht_secrettoken123456',
  createdAt: '2026-01-01T00:00:00.000Z',
  ...extra,
});

describe('webhook endpoints', () => {
  it('listWebhookPage: GET /v1/webhooks, the spec page or a flat array', async () => {
    const { token: _t, ...item } = hook();
    api.answer('GET', '/v1/webhooks', 200, { webhooks: { items: [item], hasMore: false } });
    expect((await listWebhookPage(api.transport)).items).toEqual([item]);
    expect(api.seen[0]).toMatchObject({ method: 'GET', path: '/v1/webhooks', body: undefined });
    expect(api.seen[0]!.headers).toMatchObject(expectedHeaders(false));
    api.answer('GET', '/v1/webhooks', 200, { webhooks: [item, { ...item, id: 'wh_2', status: 'PAUSED' }] });
    expect((await listWebhookPage(api.transport)).items.map((w) => w.id)).toEqual(['wh_1', 'wh_2']);
  });

  it('listWebhookPage: says when the API has more, in either shape, and keeps drifted fields', async () => {
    const { token: _t, ...item } = hook({ status: 'SOMETHING_NEW', displayName: null, updatedAt: null, enabled: true });
    api.answer('GET', '/v1/webhooks', 200, { webhooks: { items: [item], hasMore: true } });
    expect(await listWebhookPage(api.transport)).toEqual({ items: [item], hasMore: true });
    api.answer('GET', '/v1/webhooks', 200, { webhooks: [item] });
    expect(await listWebhookPage(api.transport)).toEqual({ items: [item], hasMore: false });
  });

  it('getWebhook: a null token or name is read as unset', async () => {
    api.answer('GET', '/v1/webhooks/wh_1', 200, { webhook: hook({ token: null, displayName: null, status: 'BANNED' }) });
    expect(await getWebhook(api.transport, 'wh_1')).toMatchObject({ id: 'wh_1', token: null, status: 'BANNED' });
  });

  it('getWebhook: GET /v1/webhooks/{id}', async () => {
    api.answer('GET', '/v1/webhooks/wh_1', 200, { webhook: hook() });
    expect(await getWebhook(api.transport, 'wh_1')).toEqual(hook());
    expect(api.seen[0]).toMatchObject({ method: 'GET', path: '/v1/webhooks/wh_1' });
    expect(api.seen[0]!.headers).toMatchObject(expectedHeaders(false));
  });

  it('createWebhook: POST { url, events, token? }', async () => {
    api.answer('POST', '/v1/webhooks', 200, { webhook: hook() });
    const body = { url: 'https://hooks.example.com/in', events: ['CONTACT_CREATED' as const], token: 'wht_secrettoken123456' };
    expect((await createWebhook(api.transport, body)).token).toBe('wht_secrettoken123456');
    expect(api.seen[0]).toMatchObject({ method: 'POST', path: '/v1/webhooks', body });
    expect(api.seen[0]!.headers).toMatchObject(expectedHeaders(true));
  });

  it('updateWebhook: POST { events } to /v1/webhooks/{id}', async () => {
    api.answer('POST', '/v1/webhooks/wh_1', 200, { webhook: hook({ events: ['CONTACT_DELETED', 'CONTACT_UPDATED'] }) });
    await updateWebhook(api.transport, 'wh_1', { events: ['CONTACT_DELETED', 'CONTACT_UPDATED'] });
    expect(api.seen[0]).toMatchObject({ method: 'POST', path: '/v1/webhooks/wh_1', body: { events: ['CONTACT_DELETED', 'CONTACT_UPDATED'] } });
    expect(api.seen[0]!.headers).toMatchObject(expectedHeaders(true));
  });

  it('deleteWebhook: DELETE /v1/webhooks/{id}', async () => {
    api.answer('DELETE', '/v1/webhooks/wh_1', 200, { webhook: hook(), isDeleted: true });
    expect(await deleteWebhook(api.transport, 'wh_1')).toMatchObject({ id: 'wh_1' });
    expect(api.seen[0]).toMatchObject({ method: 'DELETE', path: '/v1/webhooks/wh_1', body: undefined });
    expect(api.seen[0]!.headers).toMatchObject(expectedHeaders(false));
  });
});
