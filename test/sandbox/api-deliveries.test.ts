import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on loopback that answers with the next planned status (200 when none). */
async function receiver(plan: number[] = []) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = plan.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const hmac = (token: string, body: string) => createHmac('sha256', token).update(body).digest('hex');
const raw = (over: Record<string, unknown> = {}) => ({ from: 'ops@example.com', to: 'ada@customer.test', subject: 'Hi', html: '<p>Hi</p>', ...over });

let sb: TestSandbox;
let call: ReturnType<typeof client>;
let rx: Awaited<ReturnType<typeof receiver>>;

beforeAll(async () => {
  sb = await withSandbox({ config: { deliveries: { retryDelaysMs: [50, 50], timeoutMs: 2000 } } });
  call = client(sb);
});
afterAll(() => sb.close());
beforeEach(async () => {
  await call('POST', '/_sandbox/reset', {});
  for (const hook of (await call('GET', '/v1/webhooks')).body.webhooks.items) await call('DELETE', `/v1/webhooks/${hook.id}`);
});
afterEach(() => rx?.close());

async function subscribe(events: string[], token?: string) {
  const res = await call('POST', '/v1/webhooks', { url: rx.url, events, ...(token ? { token } : {}) });
  expect(res.status).toBe(200);
  return res.body.webhook as { id: string; token: string };
}

describe('signed deliveries', () => {
  test('a send to a new recipient delivers CONTACT_CREATED, signed so an independent HMAC verifies', async () => {
    rx = await receiver();
    const hook = await subscribe(['CONTACT_CREATED']);
    const sent = await call('POST', '/v1/emails', raw({ contactProperties: { firstName: 'Ada', lastName: 'Lovelace', plan: 'pro' } }));
    expect(sent.status).toBe(200);
    await sb.deliveriesIdle();
    expect(rx.received).toHaveLength(1);

    const [delivery] = rx.received;
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(delivery!.headers['x-smashsend-signature']).toBe(hmac(hook.token, delivery!.body));
    const env = JSON.parse(delivery!.body);
    expect(env).toEqual({
      event: 'CONTACT_CREATED',
      createdAt: expect.any(String),
      data: {
        contact: {
          id: expect.stringMatching(/^ctc_/),
          email: 'ada@customer.test',
          properties: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@customer.test', status: 'SUBSCRIBED', plan: 'pro' },
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
          workspaceId: sb.workspaceId,
        },
      },
    });
    expect(await sb.deliveries()).toEqual([
      {
        id: expect.stringMatching(/^dlv_/),
        webhookId: hook.id,
        event: 'CONTACT_CREATED',
        url: rx.url,
        attempt: 1,
        statusCode: 200,
        durationMs: expect.any(Number),
        createdAt: expect.any(String),
        body: delivery!.body,
        signature: delivery!.headers['x-smashsend-signature'],
      },
    ]);
  });

  test('a known recipient with new contactProperties delivers CONTACT_UPDATED; the same again delivers nothing', async () => {
    rx = await receiver();
    await subscribe(['CONTACT_CREATED', 'CONTACT_UPDATED'], 'wht_chosenToken123');
    await call('POST', '/v1/emails', raw());
    await call('POST', '/v1/emails', raw({ contactProperties: { firstName: 'Ada' } }));
    await call('POST', '/v1/emails', raw({ contactProperties: { firstName: 'Ada' } }));
    await sb.deliveriesIdle();
    expect(rx.received.map((r) => JSON.parse(r.body).event)).toEqual(['CONTACT_CREATED', 'CONTACT_UPDATED']);
    for (const r of rx.received) expect(r.headers['x-smashsend-signature']).toBe(hmac('wht_chosenToken123', r.body));
    expect(JSON.parse(rx.received[1]!.body).data.contact.properties.firstName).toBe('Ada');
  });

  test('only subscribed webhooks receive an event', async () => {
    rx = await receiver();
    await subscribe(['CONTACT_DELETED']);
    await call('POST', '/v1/emails', raw());
    await sb.deliveriesIdle();
    expect(rx.received).toEqual([]);
    expect(await sb.deliveries()).toEqual([]);
  });

  test('a failed delivery is retried with backoff and every attempt is recorded', async () => {
    rx = await receiver([500, 503]);
    const hook = await subscribe(['CONTACT_CREATED']);
    await call('POST', '/_sandbox/events', { event: 'CONTACT_CREATED' });
    await sb.deliveriesIdle();
    expect(rx.received).toHaveLength(3);
    expect(new Set(rx.received.map((r) => r.body)).size).toBe(1);
    const log = await sb.deliveries();
    expect(log.map((d) => [d.webhookId, d.attempt, d.statusCode])).toEqual([
      [hook.id, 1, 500],
      [hook.id, 2, 503],
      [hook.id, 3, 200],
    ]);
    expect(log[0]!.error).toContain('500');
    expect(log[2]!.error).toBeUndefined();
  });

  test('an unreachable receiver is retried as configured, then given up, with the connection error recorded', async () => {
    rx = await receiver();
    await rx.close();
    await subscribe(['CONTACT_CREATED']);
    await call('POST', '/_sandbox/events', { event: 'CONTACT_CREATED' });
    await sb.deliveriesIdle();
    const log = await sb.deliveries();
    expect(log).toHaveLength(3);
    expect(log.map((d) => d.attempt)).toEqual([1, 2, 3]);
    expect(log[0]!.statusCode).toBeUndefined();
    expect(log[0]!.error).toMatch(/ECONNREFUSED/);
  });

  test.each([
    ['deleted', (call2: ReturnType<typeof client>, id: string) => call2('DELETE', `/v1/webhooks/${id}`)],
    ['updated to drop the event', (call2: ReturnType<typeof client>, id: string) => call2('POST', `/v1/webhooks/${id}`, { events: ['CONTACT_UPDATED'] })],
  ])('a webhook %s while a retry waits gets no more attempts for it', async (_change, change) => {
    rx = await receiver([500, 500, 500]);
    const slow = await withSandbox({ config: { deliveries: { retryDelaysMs: [400, 400], timeoutMs: 2000 } } });
    try {
      const call2 = client(slow);
      const hook = (await call2('POST', '/v1/webhooks', { url: rx.url, events: ['CONTACT_CREATED'] })).body.webhook;
      await call2('POST', '/_sandbox/events', { event: 'CONTACT_CREATED' });
      await expect.poll(() => rx.received.length, { interval: 10 }).toBe(1);
      await change(call2, hook.id);
      // Idle once the pending retry's time has come and it was dropped.
      await slow.deliveriesIdle();
      expect(rx.received).toHaveLength(1);
      expect((await slow.deliveries()).map((d) => d.attempt)).toEqual([1]);
    } finally {
      await slow.close();
    }
  });

  test('a reset drops pending retries and attempts in flight: the emptied log stays empty', async () => {
    rx = await receiver([500, 500, 500]);
    const hang = createServer(() => undefined);
    await new Promise<void>((resolve) => hang.listen(0, '127.0.0.1', resolve));
    const slow = await withSandbox({ config: { deliveries: { retryDelaysMs: [300, 300], timeoutMs: 400 } } });
    try {
      const call2 = client(slow);
      await call2('POST', '/v1/webhooks', { url: rx.url, events: ['CONTACT_CREATED'] });
      await call2('POST', '/v1/webhooks', { url: `http://127.0.0.1:${(hang.address() as AddressInfo).port}/`, events: ['CONTACT_CREATED'] });
      await call2('POST', '/_sandbox/events', { event: 'CONTACT_CREATED' });
      await expect.poll(() => rx.received.length, { interval: 10 }).toBe(1);
      expect((await call2('POST', '/_sandbox/reset', {})).status).toBe(200);
      await slow.deliveriesIdle();
      expect(rx.received).toHaveLength(1);
      expect(await slow.deliveries()).toEqual([]);
    } finally {
      await slow.close();
      hang.closeAllConnections();
      hang.close();
    }
  });

  test('deliveries never slow the API answer', async () => {
    // A receiver that never answers within the test: the send must still answer at once.
    const slow = createServer(() => undefined);
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    rx = { url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/`, received: [], close: async () => void slow.closeAllConnections() };
    await subscribe(['CONTACT_CREATED']);
    const started = Date.now();
    const res = await call('POST', '/v1/emails', raw({ to: 'fast@customer.test' }));
    expect(res.status).toBe(200);
    // The attempt times out after 2 s: an answer waiting on it would take at least that long.
    expect(Date.now() - started).toBeLessThan(1500);
    slow.closeAllConnections();
    slow.close();
  });
});

describe('POST /_sandbox/events', () => {
  test.each([
    'CONTACT_CREATED',
    'CONTACT_UPDATED',
    'CONTACT_UNSUBSCRIBED',
    'CONTACT_RESUBSCRIBED',
    'CONTACT_DELETED',
  ])('%s answers and delivers the envelope with a realistic contact', async (event) => {
    rx = await receiver();
    const hook = await subscribe([event]);
    const res = await call('POST', '/_sandbox/events', { event, email: 'grace@customer.test' });
    expect(res.status).toBe(200);
    await sb.deliveriesIdle();
    expect(res.body.event).toEqual({
      event,
      createdAt: expect.any(String),
      data: {
        contact: {
          id: expect.stringMatching(/^ctc_/),
          email: 'grace@customer.test',
          properties: {
            firstName: expect.any(String),
            lastName: expect.any(String),
            email: 'grace@customer.test',
            status: event === 'CONTACT_UNSUBSCRIBED' ? 'UNSUBSCRIBED' : 'SUBSCRIBED',
          },
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
          workspaceId: sb.workspaceId,
        },
      },
    });
    expect(rx.received).toHaveLength(1);
    expect(JSON.parse(rx.received[0]!.body)).toEqual(res.body.event);
    expect(rx.received[0]!.headers['x-smashsend-signature']).toBe(hmac(hook.token, rx.received[0]!.body));
  });

  test('WORKSPACE_TEAM_MEMBER_JOINED carries workspace and user', async () => {
    const res = await call('POST', '/_sandbox/events', { event: 'WORKSPACE_TEAM_MEMBER_JOINED' });
    expect(res.status).toBe(200);
    expect(res.body.event).toEqual({
      event: 'WORKSPACE_TEAM_MEMBER_JOINED',
      createdAt: expect.any(String),
      data: {
        workspace: { id: sb.workspaceId, name: expect.any(String) },
        user: { id: expect.stringMatching(/^usr_/), email: expect.stringContaining('@'), name: expect.any(String) },
      },
    });
  });

  test('an unsubscribe then resubscribe changes the stored contact a send created', async () => {
    await call('POST', '/v1/emails', raw({ to: 'lin@customer.test', contactProperties: { firstName: 'Lin' } }));
    const unsub = await call('POST', '/_sandbox/events', { event: 'CONTACT_UNSUBSCRIBED', email: 'lin@customer.test' });
    expect(unsub.body.event.data.contact.properties).toMatchObject({ firstName: 'Lin', status: 'UNSUBSCRIBED' });
    const resub = await call('POST', '/_sandbox/events', { event: 'CONTACT_RESUBSCRIBED', email: 'lin@customer.test' });
    expect(resub.body.event.data.contact.id).toBe(unsub.body.event.data.contact.id);
    expect(resub.body.event.data.contact.properties.status).toBe('SUBSCRIBED');
  });

  test('an unknown event, a bad address or an unknown field answers 400 with the error body', async () => {
    for (const body of [{ event: 'NOPE' }, {}, { event: 'CONTACT_CREATED', email: 'nope' }, { event: 'CONTACT_CREATED', extra: 1 }]) {
      const res = await call('POST', '/_sandbox/events', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual({ statusCode: 400, error: 'Bad Request', message: expect.any(String) });
    }
  });
});

describe('delivery load', () => {
  test('at most 16 attempts are in flight at once; the rest wait their turn and all arrive', async () => {
    let open = 0;
    let most = 0;
    const held: (() => void)[] = [];
    let arrived = 0;
    const server = createServer((req, res) => {
      open += 1;
      most = Math.max(most, open);
      req.resume();
      held.push(() => {
        open -= 1;
        arrived += 1;
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    try {
      for (let i = 0; i < 40; i++) expect((await call('POST', '/v1/webhooks', { url, events: ['CONTACT_DELETED'] })).status).toBe(200);
      expect((await call('POST', '/_sandbox/events', { event: 'CONTACT_DELETED' })).status).toBe(200);
      await expect.poll(() => open, { interval: 5 }).toBe(16);
      // The API keeps answering while deliveries wait.
      expect((await call('GET', '/v1/webhooks')).status).toBe(200);
      while (arrived < 40) {
        await expect.poll(() => held.length, { interval: 5 }).toBeGreaterThan(0);
        held.splice(0).forEach((release) => release());
      }
      expect(most).toBe(16);
      await sb.deliveriesIdle();
      expect(await sb.deliveries()).toHaveLength(40);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  test('deliveries to one receiver reuse a kept-alive connection', async () => {
    const sockets = new Set<unknown>();
    const server = createServer((req, res) => {
      sockets.add(req.socket);
      req.resume();
      req.on('end', () => res.end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    try {
      expect((await call('POST', '/v1/webhooks', { url, events: ['CONTACT_DELETED'] })).status).toBe(200);
      for (let i = 1; i <= 10; i++) {
        await call('POST', '/_sandbox/events', { event: 'CONTACT_DELETED' });
        await sb.deliveriesIdle();
        expect(await sb.deliveries()).toHaveLength(i);
      }
      expect(sockets.size).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
