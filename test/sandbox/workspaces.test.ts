import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectSandbox, startSandbox, type Sandbox } from '../../src/sandbox/library.js';

let sb: Sandbox;
const servers: Server[] = [];
beforeAll(async () => {
  sb = await startSandbox({ log: () => undefined });
});
afterAll(async () => {
  await sb.close();
  for (const s of servers) await new Promise((r) => s.close(r));
});

async function api(apiKey: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${sb.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** The same call against another sandbox than the file's. */
api.call = async (on: { baseUrl: string }, apiKey: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${on.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}`);
  return res.json();
};

const receipt = (subject: string) => ({ from: 'shop@example.com', to: 'ada@customer.test', subject, html: '<p>Thanks</p>', idempotencyKey: 'receipt-A-1001' });

describe('workspaces: a test or worker gets an inbox of its own', () => {
  test('two workspaces send the same email under the same idempotency key: each catches, lists, waits for and resets its own', async () => {
    const a = await sb.workspace({ name: 'worker 1' });
    const b = await sb.workspace();
    expect(a.workspaceId).toMatch(/^wrk_/);
    expect(new Set([a.workspaceId, b.workspaceId, sb.workspaceId]).size).toBe(3);
    expect(a.apiKey).not.toBe(b.apiKey);
    expect(a.name).toBe('worker 1');
    expect(a.baseUrl).toBe(sb.baseUrl);

    const waitingA = a.waitForEmails(2, { to: 'ada@customer.test' });
    const sentA = await api(a.apiKey, 'POST', '/v1/emails', receipt('from A'));
    const sentB = await api(b.apiKey, 'POST', '/v1/emails', receipt('from B'));
    expect([sentA.status, sentB.status]).toEqual([200, 200]);
    // The same idempotency key in another workspace is another email, not a repeat of A's.
    expect(sentB.body.email.id).not.toBe(sentA.body.email.id);

    expect((await a.emails()).map((e) => e.subject)).toEqual(['from A']);
    expect((await b.emails()).map((e) => e.subject)).toEqual(['from B']);
    expect(await sb.emails()).toEqual([]);
    expect((await b.waitForEmail({ to: 'ada@customer.test' })).subject).toBe('from B');

    await b.reset();
    expect(await b.emails()).toEqual([]);
    expect((await a.emails()).map((e) => e.subject)).toEqual(['from A']);

    // A's wait saw only A's emails: B's send and reset did not move it.
    await api(b.apiKey, 'POST', '/v1/emails', { ...receipt('B again'), idempotencyKey: 'other' });
    const repeat = await api(a.apiKey, 'POST', '/v1/emails', receipt('from A'));
    expect(repeat.body.email.id).toBe(sentA.body.email.id);
    await api(a.apiKey, 'POST', '/v1/emails', { ...receipt('A second'), idempotencyKey: 'receipt-A-1002' });
    expect((await waitingA).map((e) => e.subject)).toEqual(['from A', 'A second']);
  });

  test("webhooks, contacts and deliveries are the workspace's own", async () => {
    const got: string[] = [];
    let both: () => void;
    const bothArrived = new Promise<void>((r) => (both = r));
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        got.push(`${req.url} ${(JSON.parse(body) as { data: { contact: { email: string } } }).data.contact.email}`);
        res.end();
        if (got.length === 2) both();
      });
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const a = await sb.workspace();
    const b = await sb.workspace();
    const hookA = await api(a.apiKey, 'POST', '/v1/webhooks', { url: `${url}/a`, events: ['CONTACT_CREATED'] });
    expect(hookA.status).toBe(200);
    expect((await api(b.apiKey, 'GET', '/v1/webhooks')).body.webhooks.items).toEqual([]);
    expect((await api(b.apiKey, 'GET', `/v1/webhooks/${hookA.body.webhook.id}`)).status).toBe(404);
    await api(b.apiKey, 'POST', '/v1/webhooks', { url: `${url}/b`, events: ['CONTACT_CREATED'] });

    // The same new address in each workspace: one CONTACT_CREATED each, to its own webhook.
    await api(a.apiKey, 'POST', '/v1/emails', { ...receipt('hi'), idempotencyKey: undefined, to: 'new@customer.test' });
    await api(b.apiKey, 'POST', '/v1/emails', { ...receipt('hi'), idempotencyKey: undefined, to: 'new@customer.test' });
    await bothArrived;
    expect(got.sort()).toEqual(['/a new@customer.test', '/b new@customer.test']);
    // The receiver has answered; the sandbox records each attempt once it has read that answer.
    await expect.poll(async () => (await a.deliveries()).map((d) => d.url)).toEqual([`${url}/a`]);
    await expect.poll(async () => (await b.deliveries()).map((d) => d.url)).toEqual([`${url}/b`]);
    expect(await sb.deliveries()).toEqual([]);
  });

  test("trigger() fires to the workspace's own webhooks; a workspace's delivery can be resent", async () => {
    const got: string[] = [];
    let arrived: () => void = () => undefined;
    const server = createServer((req, res) => {
      got.push(req.url!);
      req.resume();
      res.end();
      if (got.length === 2) arrived();
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const a = await sb.workspace();
    await api(a.apiKey, 'POST', '/v1/webhooks', { url: `${url}/a`, events: ['CONTACT_DELETED'] });
    const both = new Promise<void>((r) => (arrived = r));
    const envelope = await a.trigger('CONTACT_DELETED', { email: 'gone@customer.test' });
    expect(envelope.data).toMatchObject({ contact: { email: 'gone@customer.test', workspaceId: a.workspaceId } });
    await expect.poll(async () => (await a.deliveries()).length).toBe(1);
    const [first] = await a.deliveries();
    const resent = await fetch(`${sb.baseUrl}/_sandbox/deliveries/${first!.id}/resend`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(resent.status, await resent.clone().text()).toBe(200);
    await both;
    expect(got).toEqual(['/a', '/a']);
    expect(await sb.deliveries()).toEqual([]);
  });

  test("a workspace's handle waits for its own deliveries (waitForDeliveries, waitForIdle), in-process and through connectSandbox", async () => {
    const server = createServer((req, res) => {
      req.resume();
      // The first attempt fails and is retried after 50 ms: idle only once the retry is done.
      req.on('end', () => {
        res.statusCode = seen++ === 0 ? 500 : 200;
        res.end();
      });
    });
    let seen = 0;
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/w`;
    const own = await startSandbox({ log: () => undefined, config: { deliveries: { retryDelaysMs: [50] } } });
    try {
      const a = await own.workspace();
      const remote = connectSandbox(own.baseUrl);
      await api.call(own, a.apiKey, 'POST', '/v1/webhooks', { url, events: ['CONTACT_CREATED'] });
      const waiting = a.waitForDeliveries(1);
      await api.call(own, a.apiKey, 'POST', '/v1/emails', { ...receipt('hi'), idempotencyKey: undefined, to: 'first@customer.test' });
      expect((await waiting).map((d) => d.statusCode)).toEqual([500]);
      expect((await a.waitForIdle()).map((d) => [d.attempt, d.statusCode])).toEqual([
        [1, 500],
        [2, 200],
      ]);
      // The first workspace recorded none, and a wait there times out.
      expect(await own.deliveries()).toEqual([]);
      await expect(own.waitForDeliveries(1, { timeoutMs: 50 })).rejects.toThrow('mailroom sandbox: 1 delivery was not recorded within 50 ms');
      await expect(a.waitForDeliveries(3, { timeoutMs: 50 })).rejects.toThrow('mailroom sandbox: 3 deliveries were not recorded within 50 ms');
      // Over HTTP, from a worker that did not start the sandbox: the same waits.
      const b = await remote.workspace();
      await api.call(own, b.apiKey, 'POST', '/v1/webhooks', { url, events: ['CONTACT_CREATED'] });
      const remoteWait = b.waitForDeliveries(1, { timeoutMs: 5_000 });
      await api.call(own, b.apiKey, 'POST', '/v1/emails', { ...receipt('hi'), idempotencyKey: undefined, to: 'second@customer.test' });
      expect((await remoteWait).map((d) => d.url)).toEqual([url]);
      expect((await b.waitForIdle()).map((d) => d.statusCode)).toEqual([200]);
      await expect(b.waitForDeliveries(2, { timeoutMs: 50 })).rejects.toThrow('mailroom sandbox: 2 deliveries were not recorded within 50 ms');
    } finally {
      await own.close();
    }
  });

  test("the deliveries page and the live stream show the workspace asked for (?workspace=), the page's links keep it", async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end());
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pages`;
    const a = await sb.workspace({ name: 'pages worker' });
    await api(a.apiKey, 'POST', '/v1/webhooks', { url, events: ['CONTACT_CREATED'] });
    await api(a.apiKey, 'POST', '/v1/emails', { ...receipt('hi'), idempotencyKey: undefined, to: 'paged@customer.test' });
    const [delivery] = await a.waitForDeliveries(1);
    const page = async (path: string) => (await fetch(`${sb.baseUrl}${path}`, { headers: { accept: 'text/html' } })).text();
    const ofA = await page(`/deliveries?workspace=${a.workspaceId}`);
    expect(ofA).toContain(`data-id="${delivery!.id}"`);
    expect(ofA).toContain(`<a href="/?workspace=${a.workspaceId}">Inbox <span class="n" data-count="emails">1</span></a>`);
    expect(ofA).toContain(`<a href="/deliveries?workspace=${a.workspaceId}" aria-current="page">Deliveries <span class="n" data-count="deliveries">1</span></a>`);
    expect(ofA).toContain(`data-workspace="${a.workspaceId}"`);
    expect(await page('/deliveries')).not.toContain(delivery!.id);
    const inboxOfA = await page(`/?workspace=${a.workspaceId}`);
    expect(inboxOfA).toContain(`<a href="/deliveries?workspace=${a.workspaceId}">Deliveries`);
    expect(inboxOfA).toContain(`<a href="/?status=SENT&amp;workspace=${a.workspaceId}">`);
    const [caught] = await a.emails();
    expect(await page(`/inbox/${caught!.id}`)).toContain(`<a href="/?workspace=${a.workspaceId}" data-key="u">← Inbox</a>`);
    expect((await fetch(`${sb.baseUrl}/deliveries?workspace=wrk_nope`, { headers: { accept: 'text/html' } })).status).toBe(404);

    // The stream of A's page counts A's emails and deliveries, and moves when A changes.
    const controller = new AbortController();
    const res = await fetch(`${sb.baseUrl}/_sandbox/stream?workspace=${a.workspaceId}`, { signal: controller.signal });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    const nextMessage = async (): Promise<Record<string, number>> => {
      for (;;) {
        const data = /^data: (.*)$/m.exec(buffer);
        const end = buffer.indexOf('\n\n');
        if (data && end >= 0) {
          buffer = buffer.slice(end + 2);
          return JSON.parse(data[1]!) as Record<string, number>;
        }
        if (end >= 0) {
          buffer = buffer.slice(end + 2);
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buffer += decoder.decode(value, { stream: true });
      }
    };
    expect(await nextMessage()).toMatchObject({ emails: 1, scheduled: 0, deliveries: 1 });
    await api(a.apiKey, 'POST', '/v1/emails', { ...receipt('again'), idempotencyKey: undefined, to: 'paged@customer.test' });
    expect(await nextMessage()).toMatchObject({ emails: 2, deliveries: 1 });
    controller.abort();
    expect((await fetch(`${sb.baseUrl}/_sandbox/stream?workspace=wrk_nope`)).status).toBe(404);
  });

  test("a workspace's reset() lets the deliveries already on their way reach their receiver first, in-process and through connectSandbox", async () => {
    const answered: string[] = [];
    let arrived: () => void = () => undefined;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        arrived();
        // The receiver takes its time; a reset that does not wait cuts the attempt off.
        setTimeout(() => res.end(), 200);
      });
      res.on('close', () => answered.push(res.writableFinished ? 'answered' : 'cut off'));
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`;
    for (const [n, handle] of [await sb.workspace(), await connectSandbox(sb.baseUrl).workspace()].entries()) {
      await api(handle.apiKey, 'POST', '/v1/webhooks', { url, events: ['CONTACT_CREATED'] });
      const onItsWay = new Promise<void>((r) => (arrived = r));
      await api(handle.apiKey, 'POST', '/v1/emails', { ...receipt('slow'), idempotencyKey: undefined, to: `slow${n}@customer.test` });
      await onItsWay;
      await handle.reset();
      expect(answered).toEqual(['answered']);
      expect(await handle.deliveries()).toEqual([]);
      answered.length = 0;
    }
  });

  test("a workspace's key manages its own workspace's keys only", async () => {
    const a = await sb.workspace();
    const own = await api(a.apiKey, 'GET', `/v1/workspaces/${a.workspaceId}/api-keys`);
    expect(own.status).toBe(200);
    expect(JSON.stringify(own.body)).not.toContain(sb.apiKey.slice(-4) + '"');
    const other = await api(a.apiKey, 'GET', `/v1/workspaces/${sb.workspaceId}/api-keys`);
    expect(other.status).toBe(403);
    expect((await api(sb.apiKey, 'GET', `/v1/workspaces/${a.workspaceId}/api-keys`)).status).toBe(403);
  });

  test('connectSandbox(baseUrl): a worker in another process gets its workspace over HTTP', async () => {
    const conn = connectSandbox(`${sb.baseUrl}/v1`);
    expect(conn.baseUrl).toBe(sb.baseUrl);
    const ws = await conn.workspace({ name: 'remote worker' });
    const waiting = ws.waitForEmail({ subject: 'remote' });
    await api(ws.apiKey, 'POST', '/v1/emails', { ...receipt('remote hello'), idempotencyKey: undefined });
    const email = await waiting;
    expect(email.subject).toBe('remote hello');
    expect(email.links()).toEqual([]);
    const list = await fetch(`${sb.baseUrl}/_sandbox/workspaces`);
    expect(((await list.json()) as { items: { id: string; name: string }[] }).items).toContainEqual({ id: ws.workspaceId, name: 'remote worker', emails: 1 });
    expect(() => connectSandbox('not a url')).toThrow('connectSandbox wants the sandbox\'s base URL');
  });

  test('the inbox page shows one workspace at a time, picked with ?workspace= (its select lists them)', async () => {
    const a = await sb.workspace({ name: 'inbox worker' });
    await api(a.apiKey, 'POST', '/v1/emails', { ...receipt('only in A'), idempotencyKey: undefined });
    await api(sb.apiKey, 'POST', '/v1/emails', { ...receipt('only in the first'), idempotencyKey: undefined });
    const page = async (query: string) => {
      const res = await fetch(`${sb.baseUrl}/${query}`, { headers: { accept: 'text/html' } });
      return { status: res.status, text: await res.text() };
    };
    const first = await page('');
    expect(first.text).toContain('only in the first');
    expect(first.text).not.toContain('only in A');
    expect(first.text).toContain(`<option value="${a.workspaceId}">inbox worker (${a.workspaceId})</option>`);
    const ofA = await page(`?workspace=${a.workspaceId}`);
    expect(ofA.text).toContain('only in A');
    expect(ofA.text).not.toContain('only in the first');
    expect(ofA.text).toContain(`<option value="${a.workspaceId}" selected>`);
    const [email] = await a.emails();
    expect((await page(`inbox/${email!.id}`)).text).toContain('only in A');
    expect((await page('?workspace=wrk_nope')).status).toBe(404);
    // "Delete all" on a workspace's page deletes that workspace's emails, no other's.
    expect(first.text).toContain('data-action="clear">Delete all');
    expect(ofA.text).toContain(`data-action="clear" data-workspace="${a.workspaceId}">Delete all`);
    const clear = await fetch(`${sb.baseUrl}/_sandbox/emails/clear`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ workspace: a.workspaceId }) });
    expect(await clear.json()).toEqual({ deleted: 1 });
    expect(await a.emails()).toEqual([]);
    expect((await sb.emails()).map((e) => e.subject)).toEqual(['only in the first']);
    await sb.reset();
  });

  test('an unknown workspace is a 404; a bad body a 400', async () => {
    const res = await fetch(`${sb.baseUrl}/_sandbox/emails?workspace=wrk_nope`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toBe('Workspace wrk_nope not found in this sandbox');
    const post = (path: string, body: unknown) => fetch(`${sb.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const bad = await post('/_sandbox/workspaces', { name: '', extra: 1 });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toBe('Invalid request: unknown field extra');
    const reset = await post('/_sandbox/reset', { workspace: 'wrk_nope' });
    expect(reset.status).toBe(404);
    const settle = await post('/_sandbox/reset', { settle: 'yes' });
    expect(settle.status).toBe(400);
    expect(((await settle.json()) as { message: string }).message).toBe('Invalid request: settle must be true or false');
  });

  test("a workspace's delete() removes it, in-process and through connectSandbox: a wait under way rejects at once, its key is refused, and every other member then rejects saying it was deleted", async () => {
    for (const handle of [await sb.workspace({ name: 'teardown' }), await connectSandbox(sb.baseUrl).workspace({ name: 'remote teardown' })]) {
      const id = handle.workspaceId;
      expect((await api(handle.apiKey, 'POST', '/v1/emails', { ...receipt('before'), idempotencyKey: undefined })).status).toBe(200);
      const started = Date.now();
      // The waits reject while delete() is under way: their expectations are attached first.
      const waiting = expect(handle.waitForEmail({ to: 'nobody@customer.test', timeoutMs: 20_000 })).rejects.toThrow(
        `mailroom sandbox: no email to nobody@customer.test was caught: workspace ${id} was deleted while this wait was open`,
      );
      const delivering = expect(handle.waitForDeliveries(1, { timeoutMs: 20_000 })).rejects.toThrow(`mailroom sandbox: 1 delivery was not recorded: workspace ${id} was deleted while this wait was open`);
      await new Promise((r) => setTimeout(r, 50));
      await expect(handle.delete()).resolves.toBeUndefined();
      await waiting;
      await delivering;
      expect(Date.now() - started).toBeLessThan(5_000);

      const refused = await api(handle.apiKey, 'POST', '/v1/emails', receipt('after'));
      expect(refused.status).toBe(401);
      const listed = ((await (await fetch(`${sb.baseUrl}/_sandbox/workspaces`)).json()) as { items: { id: string }[] }).items;
      expect(listed.map((w) => w.id)).not.toContain(id);

      const deleted = `mailroom sandbox: workspace ${id} was deleted (delete() was called); make another with workspace()`;
      await expect(handle.emails()).rejects.toThrow(deleted);
      await expect(handle.waitForEmail()).rejects.toThrow(deleted);
      await expect(handle.waitForEmails(2)).rejects.toThrow(deleted);
      await expect(handle.deliveries()).rejects.toThrow(deleted);
      await expect(handle.waitForDeliveries(1)).rejects.toThrow(deleted);
      await expect(handle.waitForIdle()).rejects.toThrow(deleted);
      await expect(handle.reset()).rejects.toThrow(deleted);
      await expect(handle.trigger('CONTACT_CREATED')).rejects.toThrow(deleted);
      // As close() does, a second delete() does nothing.
      await expect(handle.delete()).resolves.toBeUndefined();
      // Its fields stay readable; the key in them is refused.
      expect(handle.workspaceId).toBe(id);
    }
  });

  test("delete() of a workspace someone else deleted rejects in the sandbox's words; the first workspace has no delete(); after close() delete() rejects saying the sandbox is closed", async () => {
    const handle = await sb.workspace();
    const res = await fetch(`${sb.baseUrl}/_sandbox/workspaces/${handle.workspaceId}`, { method: 'DELETE', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    await expect(handle.delete()).rejects.toThrow(`mailroom sandbox: DELETE /_sandbox/workspaces/${handle.workspaceId} answered 404: Workspace ${handle.workspaceId} not found in this sandbox`);
    await expect(handle.emails()).rejects.toThrow(`answered 404: Workspace ${handle.workspaceId} not found in this sandbox`);
    expect('delete' in connectSandbox(sb.baseUrl)).toBe(false);
    expect('delete' in sb).toBe(false);
    const own = await startSandbox({ log: () => undefined });
    const made = await own.workspace();
    await own.close();
    await expect(made.delete()).rejects.toThrow('mailroom sandbox: this sandbox is closed (close() was called); start another with startSandbox()');
  });
});
