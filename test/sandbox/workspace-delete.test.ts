import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { client } from '../helpers/sandbox.js';

// DELETE /_sandbox/workspaces/<wrk_id>: a test's teardown removes the workspace it made.

let sb: RunningSandbox;
let call: ReturnType<typeof client>;
const servers: Server[] = [];
beforeAll(async () => {
  sb = await startSandbox({ config: { deliveries: { retryDelaysMs: [100, 100, 100] } } });
  call = client(sb);
});
afterAll(async () => {
  await sb.close();
  for (const s of servers) await new Promise((r) => s.close(r));
});

interface Made {
  workspaceId: string;
  name: string;
  apiKey: string;
}

const made = async (name?: string): Promise<Made> => (await call('POST', '/_sandbox/workspaces', name === undefined ? {} : { name })).body as Made;
const del = (id: string, opts: { headers?: Record<string, string>; body?: string } = {}) =>
  fetch(`${sb.baseUrl}/_sandbox/workspaces/${id}`, { method: 'DELETE', headers: opts.headers ?? { 'content-type': 'application/json' }, ...(opts.body === undefined ? {} : { body: opts.body }) });
const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> });
const raw = (over: Record<string, unknown> = {}) => ({ from: 'shop@example.com', to: 'ada@customer.test', subject: 'Hi', html: '<p>Hi</p>', ...over });

describe('DELETE /_sandbox/workspaces/<wrk_id>', () => {
  test('removes a made workspace: 200 { deleted }, its key then gets the 401 of an unknown key, the lists, the inbox select and ?workspace= no longer know it', async () => {
    const ws = await made('to delete');
    const kept = await made('kept');
    expect((await call('POST', '/v1/emails', raw(), { key: ws.apiKey })).status).toBe(200);
    expect((await call('POST', '/v1/emails', raw({ subject: 'kept' }), { key: kept.apiKey })).status).toBe(200);

    const res = await del(ws.workspaceId);
    expect(res.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    expect(await json(res)).toEqual({ status: 200, body: { deleted: ws.workspaceId } });

    const unknown = await call('POST', '/v1/emails', raw(), { key: 'sk_live_neverIssuedKey000' });
    const deletedKey = await call('POST', '/v1/emails', raw(), { key: ws.apiKey });
    expect(unknown.status).toBe(401);
    expect({ status: deletedKey.status, body: deletedKey.body }).toEqual({ status: unknown.status, body: unknown.body });
    expect((await call('GET', '/v1/api-keys/check', undefined, { key: ws.apiKey })).status).toBe(401);

    const listed = (await call('GET', '/_sandbox/workspaces')).body.items as { id: string }[];
    expect(listed.map((w) => w.id)).not.toContain(ws.workspaceId);
    expect(listed.map((w) => w.id)).toContain(kept.workspaceId);
    const emails = await call('GET', `/_sandbox/emails?workspace=${ws.workspaceId}`);
    expect(emails).toMatchObject({ status: 404, body: { statusCode: 404, error: 'Not Found', message: `Workspace ${ws.workspaceId} not found in this sandbox` } });
    const page = await fetch(`${sb.baseUrl}/`, { headers: { accept: 'text/html' } });
    const html = await page.text();
    expect(html).toContain(`<option value="${kept.workspaceId}">`);
    expect(html).not.toContain(ws.workspaceId);
    expect((await fetch(`${sb.baseUrl}/?workspace=${ws.workspaceId}`, { headers: { accept: 'text/html' } })).status).toBe(404);
    // The other workspace is untouched.
    expect(((await call('GET', `/_sandbox/emails?workspace=${kept.workspaceId}`)).body.items as { subject: string }[]).map((e) => e.subject)).toEqual(['kept']);

    // Deleted twice (a teardown run again): the second is an unknown id.
    expect(await json(await del(ws.workspaceId))).toEqual({
      status: 404,
      body: { statusCode: 404, error: 'Not Found', message: `Workspace ${ws.workspaceId} not found in this sandbox` },
    });
  });

  test("the first workspace (the ready key's) cannot be deleted: 409 in the sandbox's words; an unknown id is a 404; a body with fields a 400", async () => {
    expect(await json(await del(sb.workspaceId))).toEqual({
      status: 409,
      body: {
        statusCode: 409,
        error: 'Conflict',
        message: `Workspace ${sb.workspaceId} is this sandbox's first workspace (its ready key's) and cannot be deleted: empty it with POST /_sandbox/reset instead`,
      },
    });
    expect((await call('GET', '/v1/api-keys/check')).status).toBe(200);
    expect(await json(await del('wrk_nope'))).toEqual({ status: 404, body: { statusCode: 404, error: 'Not Found', message: 'Workspace wrk_nope not found in this sandbox' } });
    const ws = await made();
    expect(await json(await del(ws.workspaceId, { body: '{"force":true}' }))).toEqual({
      status: 400,
      body: { statusCode: 400, error: 'Bad Request', message: 'Invalid request: unknown field force' },
    });
    // `{}` and no body at all are both a plain delete.
    expect((await del(ws.workspaceId, { body: '{}' })).status).toBe(200);
    const other = await made();
    expect((await del(other.workspaceId)).status).toBe(200);
  });

  test('guarded like the other control endpoints: JSON content type, no foreign Origin, a local Host name', async () => {
    const ws = await made();
    expect(await json(await del(ws.workspaceId, { headers: {} }))).toMatchObject({ status: 415 });
    expect(await json(await del(ws.workspaceId, { headers: { 'content-type': 'application/json', origin: 'https://evil.example' } }))).toMatchObject({ status: 403 });
    const rebound = await new Promise<number>((resolve, reject) => {
      const { port } = new URL(sb.baseUrl);
      const req = httpRequest({ host: '127.0.0.1', port, method: 'DELETE', path: `/_sandbox/workspaces/${ws.workspaceId}`, headers: { host: `evil.example:${port}`, 'content-type': 'application/json' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end();
    });
    expect(rebound).toBe(403);
    // None of them deleted it.
    expect((await call('GET', '/v1/api-keys/check', undefined, { key: ws.apiKey })).status).toBe(200);
  });

  test('long polls scoped to it end at once with a 404 saying it was deleted, not at their timeout', async () => {
    const ws = await made();
    const started = Date.now();
    const emailWait = fetch(`${sb.baseUrl}/_sandbox/emails/wait?workspace=${ws.workspaceId}&timeoutMs=20000`);
    const deliveryWait = fetch(`${sb.baseUrl}/_sandbox/deliveries/wait?workspace=${ws.workspaceId}&count=1&timeoutMs=20000`);
    await new Promise((r) => setTimeout(r, 50));
    expect((await del(ws.workspaceId)).status).toBe(200);
    for (const wait of [emailWait, deliveryWait]) {
      expect(await json(await wait)).toEqual({ status: 404, body: { statusCode: 404, error: 'Not Found', message: `Workspace ${ws.workspaceId} was deleted while this wait was open` } });
    }
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test('its pending webhook retries stop and its live stream ends', async () => {
    let hits = 0;
    const server = createServer((req, res) => {
      hits += 1;
      req.resume();
      req.on('end', () => {
        res.statusCode = 500;
        res.end();
      });
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const ws = await made();
    expect((await call('POST', '/v1/webhooks', { url, events: ['CONTACT_CREATED'] }, { key: ws.apiKey })).status).toBe(200);
    const stream = await fetch(`${sb.baseUrl}/_sandbox/stream?workspace=${ws.workspaceId}`);
    const reading = (async () => {
      const reader = stream.body!.getReader();
      while (!(await reader.read()).done);
      return 'ended';
    })();
    const waiting = fetch(`${sb.baseUrl}/_sandbox/deliveries/wait?workspace=${ws.workspaceId}&count=1&timeoutMs=5000`);
    expect((await call('POST', '/v1/emails', raw({ to: 'new@customer.test' }), { key: ws.apiKey })).status).toBe(200);
    expect((await waiting).status).toBe(200);
    expect(hits).toBe(1);
    // The first attempt failed: a retry is due in 100 ms. Deleted first, none follows.
    expect((await del(ws.workspaceId)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 400));
    expect(hits).toBe(1);
    expect(await reading).toBe('ended');
  });

  test('a request whose key was checked before the delete, and whose body arrives after it, is refused with the 401 of an unknown key: it lands nowhere', async () => {
    const ws = await made();
    const body = JSON.stringify(raw({ subject: 'late' }));
    const { port } = new URL(sb.baseUrl);
    let headersSent!: () => void;
    const sent = new Promise<void>((r) => (headersSent = r));
    const answer = new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, method: 'POST', path: '/v1/emails', headers: { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      req.flushHeaders();
      req.write(body.slice(0, 10), () => headersSent());
      setTimeout(() => void sent.then(() => del(ws.workspaceId)).then(() => req.end(body.slice(10))), 100);
    });
    const got = await answer;
    const unknown = await call('POST', '/v1/emails', raw(), { key: 'sk_live_neverIssuedKey000' });
    expect(got).toEqual({ status: 401, body: unknown.body });
    const everywhere = (await call('GET', '/_sandbox/workspaces')).body.items as { id: string }[];
    for (const w of everywhere) {
      const subjects = ((await call('GET', `/_sandbox/emails?workspace=${w.id}`)).body.items as { subject: string }[]).map((e) => e.subject);
      expect(subjects).not.toContain('late');
    }
  });
});
