import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkKey, createKey, deleteKey, listAllKeys, listKeys, updateKey } from '../../src/api/apiKeys.js';
import { expectedHeaders, KEY, mockApi, ORIGIN } from './mock.js';

let api: ReturnType<typeof mockApi>;
beforeEach(() => {
  api = mockApi();
});
afterEach(async () => {
  api.agent.assertNoPendingInterceptors();
  await api.close();
});

const key = (n: number, extra: Record<string, unknown> = {}) => ({
  id: `aki_${n}`,
  displayName: `key ${n}`,
  role: 'API_USER',
  status: 'ACTIVE',
  secretKey: 'sk_live_…abcd',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...extra,
});

describe('api keys endpoints', () => {
  it('checkKey: GET /v1/api-keys/check', async () => {
    api.answer('GET', '/v1/api-keys/check', 200, { status: 'SUCCEED', displayName: 'ci', role: 'EDITOR' });
    expect(await checkKey(api.transport)).toEqual({ status: 'SUCCEED', displayName: 'ci', role: 'EDITOR' });
    expect(api.seen[0]).toEqual({ method: 'GET', path: '/v1/api-keys/check', headers: expect.objectContaining(expectedHeaders(false)), body: undefined });
    expect(api.seen[0]!.headers).not.toHaveProperty('content-type');
  });

  it('checkKey: a 200 is a valid key even when the answer leaves its name or role null or out', async () => {
    api.answer('GET', '/v1/api-keys/check', 200, { status: 'SUCCEED', displayName: null });
    expect(await checkKey(api.transport)).toEqual({ status: 'SUCCEED', displayName: null });
  });

  it('listKeys: a null secretKey is read as none', async () => {
    const key = { id: 'aki_1', displayName: 'ci', role: 'VIEWER', status: 'ARCHIVED', secretKey: null, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' };
    api.answer('GET', '/v1/workspaces/wrk_1/api-keys', 200, { apiKeys: { items: [key], hasMore: false, startAt: null } });
    expect((await listKeys(api.transport, 'wrk_1')).items).toEqual([key]);
  });

  it('listKeys: GET /v1/workspaces/{wrk}/api-keys with limit and startAt', async () => {
    api.answer('GET', '/v1/workspaces/wrk_1/api-keys?limit=2&startAt=2026-01-02T00%3A00%3A00.000Z', 200, {
      apiKeys: { items: [key(1), key(2, { role: 'VIEWER', status: 'ARCHIVED' })], hasMore: true, startAt: '2026-01-03T00:00:00.000Z' },
    });
    const page = await listKeys(api.transport, 'wrk_1', { limit: 2, startAt: '2026-01-02T00:00:00.000Z' });
    expect(page).toEqual({ items: [key(1), key(2, { role: 'VIEWER', status: 'ARCHIVED' })], hasMore: true, startAt: '2026-01-03T00:00:00.000Z' });
    expect(api.seen[0]!.method).toBe('GET');
    expect(api.seen[0]!.headers).toMatchObject(expectedHeaders(false));
  });

  it('listAllKeys follows hasMore/startAt to the last page', async () => {
    api.answer('GET', '/v1/workspaces/wrk_1/api-keys?limit=1', 200, { apiKeys: { items: [key(1)], hasMore: true, startAt: 'c2' } });
    api.answer('GET', '/v1/workspaces/wrk_1/api-keys?limit=1&startAt=c2', 200, { apiKeys: { items: [key(2)], hasMore: true, startAt: 'c3' } });
    api.answer('GET', '/v1/workspaces/wrk_1/api-keys?limit=1&startAt=c3', 200, { apiKeys: { items: [key(3)], hasMore: false, startAt: null } });
    expect((await listAllKeys(api.transport, 'wrk_1', { limit: 1 })).map((k) => k.id)).toEqual(['aki_1', 'aki_2', 'aki_3']);
  });

  it('listAllKeys stops on a repeated cursor instead of looping', async () => {
    api.answer('GET', '/v1/workspaces/wrk_1/api-keys', 200, { apiKeys: { items: [key(1)], hasMore: true, startAt: 'c' } });
    api.answer('GET', '/v1/workspaces/wrk_1/api-keys?startAt=c', 200, { apiKeys: { items: [key(2)], hasMore: true, startAt: 'c' } });
    expect(await listAllKeys(api.transport, 'wrk_1')).toHaveLength(2);
  });

  it('createKey: POST { displayName, role } and returns the full secret', async () => {
    api.answer('POST', '/v1/workspaces/wrk_1/api-keys', 200, { apiKey: key(9, { secretKey: 'sk_live_fullsecret' }) });
    const created = await createKey(api.transport, 'wrk_1', { displayName: 'deploy', role: 'API_USER' });
    expect(created.secretKey).toBe('sk_live_fullsecret');
    expect(api.seen[0]).toMatchObject({ method: 'POST', path: '/v1/workspaces/wrk_1/api-keys', body: { displayName: 'deploy', role: 'API_USER' } });
    expect(api.seen[0]!.headers).toMatchObject(expectedHeaders(true));
  });

  it('updateKey: POST to the key path with only the given fields', async () => {
    api.answer('POST', '/v1/workspaces/wrk_1/api-keys/aki_9', 200, { apiKey: key(9, { displayName: 'renamed' }) });
    expect((await updateKey(api.transport, 'wrk_1', 'aki_9', { displayName: 'renamed' })).displayName).toBe('renamed');
    expect(api.seen[0]).toMatchObject({ method: 'POST', path: '/v1/workspaces/wrk_1/api-keys/aki_9', body: { displayName: 'renamed' } });
    expect(api.seen[0]!.headers).toMatchObject(expectedHeaders(true));
  });

  it('deleteKey: DELETE the key path; requires isDeleted true', async () => {
    api.answer('DELETE', '/v1/workspaces/wrk_1/api-keys/aki_9', 200, { apiKey: key(9), isDeleted: true });
    expect(await deleteKey(api.transport, 'wrk_1', 'aki_9')).toMatchObject({ id: 'aki_9' });
    expect(api.seen[0]).toMatchObject({ method: 'DELETE', path: '/v1/workspaces/wrk_1/api-keys/aki_9', body: undefined });
    expect(api.seen[0]!.headers).toMatchObject(expectedHeaders(false));
    api.answer('DELETE', '/v1/workspaces/wrk_1/api-keys/aki_8', 200, { apiKey: key(8) });
    await expect(deleteKey(api.transport, 'wrk_1', 'aki_8')).rejects.toThrow(/unexpected key delete response/);
  });

  it('deleteKey: a 404 answering a retry after a lost answer means the lost attempt deleted it; a first 404 is not found', async () => {
    const { createHttpTransport } = await import('../../src/transport/http.js');
    const retrying = createHttpTransport({ baseUrl: ORIGIN, apiKey: KEY, dispatcher: api.agent, userAgent: 'ua', timeoutMs: 5000, maxRetries: 2, ownsDispatcher: false, wait: async () => {} });
    api.agent.get(ORIGIN).intercept({ method: 'DELETE', path: '/v1/workspaces/wrk_1/api-keys/aki_7' }).replyWithError(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    api.answer('DELETE', '/v1/workspaces/wrk_1/api-keys/aki_7', 404, { statusCode: 404, error: 'Not Found', message: 'API key aki_7 not found' });
    expect(await deleteKey(retrying, 'wrk_1', 'aki_7')).toBe('gone');
    api.answer('DELETE', '/v1/workspaces/wrk_1/api-keys/aki_6', 404, { statusCode: 404, error: 'Not Found', message: 'API key aki_6 not found' });
    await expect(deleteKey(retrying, 'wrk_1', 'aki_6')).rejects.toMatchObject({ status: 404, kind: 'rejected' });
  });

  it('refuses a path segment that is not an id of its kind, before any request (api/paths.ts)', async () => {
    await expect(deleteKey(api.transport, 'wrk_/../', 'aki_1')).rejects.toThrow('"wrk_/../" is not a workspace id: expected wrk_...');
    await expect(deleteKey(api.transport, 'wrk_1', 'aki_1/..')).rejects.toThrow('"aki_1/.." is not an API key id: expected aki_...');
    expect(api.seen).toEqual([]);
  });
});
