import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { MAX_DELIVERIES_IN_FLIGHT } from '../../src/sandbox/deliveries.js';
import { runInProcess } from '../helpers/context.js';

// A receiver that never answers while events keep coming: the deliveries waiting for it are
// bounded (deliveries.maxQueued), and what does not fit is dropped, counted and shown, never silently.
const open: (TestSandbox | Server)[] = [];
afterEach(async () => {
  for (const x of open.splice(0)) {
    if ('baseUrl' in x) await x.close();
    else {
      x.closeAllConnections();
      await new Promise((resolve) => x.close(resolve));
    }
  }
});

async function hangingReceiver() {
  let received = 0;
  const server = createServer((req) => {
    req.resume();
    req.on('end', () => (received += 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received: () => received };
}

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('never happened');
}

describe('the webhook delivery queue', () => {
  test('bounded: past maxQueued, new deliveries are dropped, counted in GET /_sandbox/deliveries and shown in the inbox', async () => {
    const rx = await hangingReceiver();
    const sb = await withSandbox({ config: { deliveries: { retryDelaysMs: [], timeoutMs: 60_000, maxQueued: 5 } } });
    open.push(sb);
    const call = client(sb);
    const hook = (await call('POST', '/v1/webhooks', { url: rx.url, events: ['CONTACT_DELETED'] })).body.webhook;
    const events = MAX_DELIVERIES_IN_FLIGHT + 5 + 9;
    for (let i = 0; i < events; i++) expect((await call('POST', '/_sandbox/events', { event: 'CONTACT_DELETED' })).status).toBe(200);
    await until(async () => (await call('GET', '/_sandbox/deliveries')).body.dropped === 9);
    const listed = (await call('GET', '/_sandbox/deliveries')).body as { items: Array<{ webhookId: string; event: string; notDelivered?: string; error?: string }>; total: number; dropped: number };
    expect(listed.dropped).toBe(9);
    expect(listed.items).toHaveLength(9);
    for (const d of listed.items) {
      expect(d).toMatchObject({ webhookId: hook.id, event: 'CONTACT_DELETED', error: 'not delivered' });
      expect(d.notDelivered).toBe('dropped: the delivery queue is full (5 waiting for a turn or a retry, deliveries.maxQueued)');
    }
    await until(async () => rx.received() === MAX_DELIVERIES_IN_FLIGHT);
    const page = await (await fetch(`${sb.baseUrl}/deliveries`)).text();
    expect(page).toContain('<span>9 dropped: the delivery queue was full</span>');
    // mailroom sandbox deliveries: in its JSON, and said on stderr beside the table.
    const json = await runInProcess(['sandbox', 'deliveries', '--json'], { env: { MAILROOM_BASE_URL: sb.baseUrl } });
    expect(JSON.parse(json.stdout)).toMatchObject({ dropped: 9 });
    const table = await runInProcess(['sandbox', 'deliveries', '--no-color'], { env: { MAILROOM_BASE_URL: sb.baseUrl }, tty: true, columns: 120 });
    expect(table.code).toBe(0);
    expect(table.stderr).toContain("mailroom: note: 9 deliveries were dropped because the delivery queue was full (deliveries.maxQueued in the sandbox's --config)\n");
    // A reset empties the count with the log.
    await call('POST', '/_sandbox/reset', {});
    expect((await call('GET', '/_sandbox/deliveries')).body).toMatchObject({ items: [], total: 0, dropped: 0 });
  });

  test('by default (maxQueued 10,000) the same burst waits whole: nothing dropped', async () => {
    const rx = await hangingReceiver();
    const sb = await withSandbox({ config: { deliveries: { retryDelaysMs: [], timeoutMs: 60_000 } } });
    open.push(sb);
    const call = client(sb);
    await call('POST', '/v1/webhooks', { url: rx.url, events: ['CONTACT_DELETED'] });
    for (let i = 0; i < MAX_DELIVERIES_IN_FLIGHT + 14; i++) await call('POST', '/_sandbox/events', { event: 'CONTACT_DELETED' });
    await until(async () => rx.received() === MAX_DELIVERIES_IN_FLIGHT);
    expect((await call('GET', '/_sandbox/deliveries')).body).toMatchObject({ items: [], dropped: 0 });
  });

  test('retries count: a retry that finds the queue full is dropped too, and says so', async () => {
    const failing = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.statusCode = 500;
        res.end();
      });
    });
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    open.push(failing);
    const sb = await withSandbox({ config: { deliveries: { retryDelaysMs: [60_000], timeoutMs: 5_000, maxQueued: 2 } } });
    open.push(sb);
    const call = client(sb);
    await call('POST', '/v1/webhooks', { url: `http://127.0.0.1:${(failing.address() as AddressInfo).port}/h`, events: ['CONTACT_DELETED'] });
    for (let i = 0; i < 4; i++) await call('POST', '/_sandbox/events', { event: 'CONTACT_DELETED' });
    await sb.deliveriesSettled();
    const { items, dropped } = (await call('GET', '/_sandbox/deliveries')).body as { items: Array<{ attempt: number; statusCode?: number; notDelivered?: string; nextRetryAt?: string }>; dropped: number };
    // Each failed attempt waits for its retry: two fit, the other two retries cannot wait.
    expect(items.filter((d) => d.statusCode === 500)).toHaveLength(4);
    expect(items.filter((d) => d.nextRetryAt !== undefined)).toHaveLength(2);
    expect(items.filter((d) => d.notDelivered !== undefined).map((d) => [d.attempt, d.notDelivered])).toEqual([
      [2, 'dropped: the delivery queue is full (2 waiting for a turn or a retry, deliveries.maxQueued)'],
      [2, 'dropped: the delivery queue is full (2 waiting for a turn or a retry, deliveries.maxQueued)'],
    ]);
    expect(dropped).toBe(2);
  });
});
