import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let call: ReturnType<typeof client>;
let keysPath: string;

beforeAll(async () => {
  sb = await withSandbox({ apiKey: 'sk_live_fixedForTests0001' });
  call = client(sb);
  keysPath = `/v1/workspaces/${sb.workspaceId}/api-keys`;
});
afterAll(() => sb.close());

const notFound = (what: RegExp) => ({ statusCode: 404, error: 'Not Found', message: expect.stringMatching(what) });

describe('the ready key and the check endpoint', () => {
  test('--api-key fixes the key and the workspace id has its prefix', () => {
    expect(sb.apiKey).toBe('sk_live_fixedForTests0001');
    expect(sb.workspaceId).toMatch(/^wrk_/);
  });

  test('GET /v1/api-keys/check answers SUCCEED with the presenting key’s name and role', async () => {
    const res = await call('GET', '/v1/api-keys/check');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'SUCCEED', displayName: 'Sandbox key', role: 'API_USER' });
  });

  test('an invalid key on the check endpoint answers 401 with the error body', async () => {
    const res = await call('GET', '/v1/api-keys/check', undefined, { key: 'sk_live_nope' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Invalid API key' });
    const malformed = await call('GET', '/v1/api-keys/check', undefined, { key: null, headers: { authorization: 'Basic abc' } });
    expect(malformed.status).toBe(401);
  });
});

describe('API keys', () => {
  test('create shows the secret once; list, update and delete mask it; a deleted key is rejected at once', async () => {
    const created = await call('POST', keysPath, { displayName: 'CI deploys', role: 'API_USER' });
    expect(created.status).toBe(200);
    const key = created.body.apiKey;
    expect(key).toEqual({
      id: expect.stringMatching(/^aki_/),
      displayName: 'CI deploys',
      role: 'API_USER',
      status: 'ACTIVE',
      secretKey: expect.stringMatching(/^sk_live_[A-Za-z0-9]{32}$/),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const secret: string = key.secretKey;
    const masked = `sk_live_…${secret.slice(-4)}`;

    // The new key works for auth and check reports its own name.
    const checked = await call('GET', '/v1/api-keys/check', undefined, { key: secret });
    expect(checked.body).toEqual({ status: 'SUCCEED', displayName: 'CI deploys', role: 'API_USER' });

    const list = await call('GET', keysPath);
    const listed = list.body.apiKeys.items.find((k: { id: string }) => k.id === key.id);
    expect(listed).toEqual({ ...key, secretKey: masked });
    expect(JSON.stringify(list.body)).not.toContain(secret);

    const updated = await call('POST', `${keysPath}/${key.id}`, { displayName: 'CI (renamed)' });
    expect(updated.status).toBe(200);
    expect(updated.body.apiKey).toMatchObject({ id: key.id, displayName: 'CI (renamed)', role: 'API_USER', secretKey: masked });

    const deleted = await call('DELETE', `${keysPath}/${key.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ apiKey: expect.objectContaining({ id: key.id, secretKey: masked }), isDeleted: true });

    const after = await call('GET', '/v1/api-keys/check', undefined, { key: secret });
    expect(after.status).toBe(401);
    const send = await call('POST', '/v1/emails', { from: 'a@example.com', to: 'b@c.test', subject: 's', html: 'h' }, { key: secret });
    expect(send.status).toBe(401);
  });

  test('a key can delete itself and is rejected on its next request', async () => {
    const created = await call('POST', keysPath, { displayName: 'short-lived', role: 'API_USER' });
    const { id, secretKey } = created.body.apiKey;
    expect((await call('DELETE', `${keysPath}/${id}`, undefined, { key: secretKey })).status).toBe(200);
    expect((await call('GET', keysPath, undefined, { key: secretKey })).status).toBe(401);
  });

  test('list pages with limit, sort and startAt', async () => {
    for (let i = 0; i < 4; i++) await call('POST', keysPath, { displayName: `page-${i}`, role: 'API_USER' });
    const all = (await call('GET', `${keysPath}?limit=100&sort=createdAt.asc`)).body.apiKeys;
    expect(all.hasMore).toBe(false);
    expect(all.startAt).toBeNull();
    const names = all.items.map((k: { displayName: string }) => k.displayName);
    expect(names.slice(-4)).toEqual(['page-0', 'page-1', 'page-2', 'page-3']);

    const seen: string[] = [];
    let startAt: string | null = null;
    do {
      const q: string = `limit=2${startAt ? `&startAt=${encodeURIComponent(startAt)}` : ''}`;
      const page: { items: { displayName: string }[]; hasMore: boolean; startAt: string | null } = (await call('GET', `${keysPath}?${q}`)).body.apiKeys;
      expect(page.items.length).toBeLessThanOrEqual(2);
      expect(page.hasMore).toBe(page.startAt !== null);
      seen.push(...page.items.map((k) => k.displayName));
      startAt = page.startAt;
    } while (startAt);
    expect(seen).toEqual([...names].reverse());

    const defaultPage = (await call('GET', keysPath)).body.apiKeys;
    expect(defaultPage.items.length).toBe(Math.min(15, names.length));
  });

  test.each([['limit=0'], ['limit=101'], ['limit=abc'], ['sort=name'], ['startAt=yesterday']])('list with %s answers 400', async (q) => {
    const res = await call('GET', `${keysPath}?${q}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
  });

  test('a VIEWER key reads but cannot write: 401 naming api_user on emails and webhooks, 403 on keys', async () => {
    const viewer = (await call('POST', keysPath, { displayName: 'auditor', role: 'VIEWER' })).body.apiKey;
    const as = { key: viewer.secretKey as string };
    expect((await call('GET', '/v1/api-keys/check', undefined, as)).body).toEqual({ status: 'SUCCEED', displayName: 'auditor', role: 'VIEWER' });
    expect((await call('GET', keysPath, undefined, as)).status).toBe(200);
    expect((await call('GET', '/v1/webhooks', undefined, as)).status).toBe(200);

    const send = await call('POST', '/v1/emails', { from: 'a@example.com', to: 'b@c.test', subject: 's', html: 'h' }, as);
    expect(send.status).toBe(401);
    expect(send.body).toEqual({ statusCode: 401, error: 'Unauthorized', message: expect.stringMatching(/VIEWER.*api_user/) });
    expect((await call('POST', '/v1/webhooks', { url: 'http://x.test/', events: ['CONTACT_CREATED'] }, as)).status).toBe(401);

    const create = await call('POST', keysPath, { displayName: 'x', role: 'API_USER' }, as);
    expect(create.status).toBe(403);
    expect(create.body).toEqual({ statusCode: 403, error: 'Forbidden', message: expect.stringContaining('lacks permissions') });
    expect((await call('DELETE', `${keysPath}/${viewer.id}`, undefined, as)).status).toBe(403);
    expect((await call('DELETE', `${keysPath}/${viewer.id}`)).status).toBe(200);
  });

  test('key endpoints of another workspace answer 403', async () => {
    for (const [method, path, body] of [
      ['GET', '/v1/workspaces/wrk_someoneElse/api-keys', undefined],
      ['POST', '/v1/workspaces/wrk_someoneElse/api-keys', { displayName: 'x', role: 'API_USER' }],
      ['POST', '/v1/workspaces/wrk_someoneElse/api-keys/aki_x', { displayName: 'x' }],
      ['DELETE', '/v1/workspaces/wrk_someoneElse/api-keys/aki_x', undefined],
    ] as const) {
      const res = await call(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toEqual({ statusCode: 403, error: 'Forbidden', message: expect.stringContaining('wrk_someoneElse') });
    }
  });

  test('unknown key ids answer 404; invalid bodies 400', async () => {
    expect(await call('POST', `${keysPath}/aki_missing`, { displayName: 'x' })).toMatchObject({ status: 404, body: notFound(/aki_missing/) });
    expect(await call('DELETE', `${keysPath}/aki_missing`)).toMatchObject({ status: 404, body: notFound(/aki_missing/) });
    for (const body of [{ displayName: '' , role: 'API_USER' }, { displayName: 'x', role: 'GOD' }, { displayName: 'x', role: 'API_USER', secretKey: 'sk_live_mine' }, {}]) {
      const res = await call('POST', keysPath, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', message: expect.any(String) });
    }
    const primary = (await call('GET', `${keysPath}?limit=100`)).body.apiKeys.items.find((k: { displayName: string }) => k.displayName === 'Sandbox key');
    expect((await call('POST', `${keysPath}/${primary.id}`, { secretKey: 'sk_live_x' })).status).toBe(400);
  });
});

describe('webhooks', () => {
  test('create, get, update, list without tokens, delete', async () => {
    const created = await call('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['CONTACT_CREATED'] });
    expect(created.status).toBe(200);
    const hook = created.body.webhook;
    expect(hook).toEqual({
      id: expect.stringMatching(/^wh_/),
      url: 'http://127.0.0.1:9/hook',
      events: ['CONTACT_CREATED'],
      token: expect.stringMatching(/^wht_/),
      createdAt: expect.any(String),
      status: 'ACTIVE',
      workspaceId: expect.stringMatching(/^wrk_/),
    });

    const own = await call('POST', '/v1/webhooks', { url: 'https://example.com/in', events: ['CONTACT_DELETED'], token: 'wht_mySecretToken' });
    expect(own.body.webhook.token).toBe('wht_mySecretToken');

    expect(await call('GET', `/v1/webhooks/${hook.id}`)).toMatchObject({ status: 200, body: { webhook: hook } });

    const updated = await call('POST', `/v1/webhooks/${hook.id}`, { events: ['CONTACT_UPDATED', 'WORKSPACE_TEAM_MEMBER_JOINED'] });
    expect(updated.status).toBe(200);
    expect(updated.body.webhook).toEqual({ ...hook, events: ['CONTACT_UPDATED', 'WORKSPACE_TEAM_MEMBER_JOINED'], updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });

    const list = await call('GET', '/v1/webhooks');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      webhooks: {
        items: [
          { id: hook.id, url: hook.url, events: ['CONTACT_UPDATED', 'WORKSPACE_TEAM_MEMBER_JOINED'], createdAt: hook.createdAt, status: 'ACTIVE', workspaceId: hook.workspaceId, updatedAt: updated.body.webhook.updatedAt },
          { id: own.body.webhook.id, url: 'https://example.com/in', events: ['CONTACT_DELETED'], createdAt: own.body.webhook.createdAt, status: 'ACTIVE', workspaceId: hook.workspaceId },
        ],
        hasMore: false,
      },
    });
    expect(JSON.stringify(list.body)).not.toContain('wht_');

    const deleted = await call('DELETE', `/v1/webhooks/${hook.id}`);
    expect(deleted.body).toEqual({ webhook: { ...hook, events: ['CONTACT_UPDATED', 'WORKSPACE_TEAM_MEMBER_JOINED'], updatedAt: updated.body.webhook.updatedAt }, isDeleted: true });
    expect((await call('GET', `/v1/webhooks/${hook.id}`)).status).toBe(404);
    await call('DELETE', `/v1/webhooks/${own.body.webhook.id}`);
  });

  test('unknown webhook ids answer 404; invalid bodies 400', async () => {
    expect(await call('GET', '/v1/webhooks/wh_missing')).toMatchObject({ status: 404, body: notFound(/wh_missing/) });
    expect(await call('POST', '/v1/webhooks/wh_missing', { events: ['CONTACT_CREATED'] })).toMatchObject({ status: 404, body: notFound(/wh_missing/) });
    expect(await call('DELETE', '/v1/webhooks/wh_missing')).toMatchObject({ status: 404, body: notFound(/wh_missing/) });
    for (const body of [
      { url: 'not a url', events: ['CONTACT_CREATED'] },
      { url: 'ftp://x.test/', events: ['CONTACT_CREATED'] },
      { url: 'http://x.test/', events: ['NOT_AN_EVENT'] },
      { url: 'http://x.test/', events: [] },
      { url: 'http://x.test/', events: ['CONTACT_CREATED'], paused: true },
    ]) {
      const res = await call('POST', '/v1/webhooks', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    }
  });
});
