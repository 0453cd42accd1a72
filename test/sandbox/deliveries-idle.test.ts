import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

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

/** A receiver answering each status of `plan` in turn (200 after them); `hang` never answers. */
async function receiver(plan: number[] | 'hang' = []) {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      if (plan === 'hang') return;
      res.statusCode = plan.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received: () => received };
}

async function sandbox(retryDelaysMs: number[], timeoutMs = 2_000) {
  const sb = await withSandbox({ config: { deliveries: { retryDelaysMs, timeoutMs } } });
  open.push(sb);
  return sb;
}

describe('the sandbox deliveries idle event (deliveriesIdle)', () => {
  test('resolves at once when no delivery was ever caused', async () => {
    const sb = await sandbox([50]);
    await sb.deliveriesIdle();
    expect(await sb.deliveries()).toEqual([]);
  });

  test('awaited right after the answer of the API call that caused a delivery, it resolves once that delivery is recorded', async () => {
    const rx = await receiver();
    const sb = await sandbox([50]);
    const call = client(sb);
    await call('POST', '/v1/webhooks', { url: rx.url, events: ['CONTACT_CREATED'] });
    expect((await call('POST', '/v1/emails', { from: 'ops@example.com', to: 'ada@customer.test', subject: 'Hi', html: '<p>Hi</p>' })).status).toBe(200);
    await sb.deliveriesIdle();
    expect(rx.received()).toBe(1);
    expect((await sb.deliveries()).map((d) => d.statusCode)).toEqual([200]);
  });

  test('waits for retries waiting for their delay, up to the last attempt (deliveriesSettled does not)', async () => {
    const rx = await receiver([500, 500]);
    const sb = await sandbox([30, 30]);
    const call = client(sb);
    await call('POST', '/v1/webhooks', { url: rx.url, events: ['CONTACT_DELETED'] });
    await call('POST', '/_sandbox/events', { event: 'CONTACT_DELETED' });
    await sb.deliveriesSettled();
    expect((await sb.deliveries()).map((d) => d.attempt)).toEqual([1]);
    await sb.deliveriesIdle();
    expect((await sb.deliveries()).map((d) => [d.attempt, d.statusCode])).toEqual([
      [1, 500],
      [2, 500],
      [3, 200],
    ]);
    expect(rx.received()).toBe(3);
  });

  test('a reset with only a retry pending makes it idle at once', async () => {
    const rx = await receiver([500]);
    const sb = await sandbox([60_000]);
    const call = client(sb);
    await call('POST', '/v1/webhooks', { url: rx.url, events: ['CONTACT_DELETED'] });
    await call('POST', '/_sandbox/events', { event: 'CONTACT_DELETED' });
    await sb.deliveriesSettled();
    const idle = sb.deliveriesIdle();
    expect((await call('POST', '/_sandbox/reset', {})).status).toBe(200);
    await idle;
    expect(await sb.deliveries()).toEqual([]);
    expect(rx.received()).toBe(1);
  });

  test('a reset with a retry pending and an attempt in flight makes it idle at once, long before the retry delay or the delivery timeout', async () => {
    const failing = await receiver([500]);
    const hung = await receiver('hang');
    const sb = await sandbox([60_000], 60_000);
    const call = client(sb);
    await call('POST', '/v1/webhooks', { url: failing.url, events: ['CONTACT_DELETED'] });
    await call('POST', '/v1/webhooks', { url: hung.url, events: ['CONTACT_DELETED'] });
    await call('POST', '/_sandbox/events', { event: 'CONTACT_DELETED' });
    await expect.poll(async () => (await sb.deliveries()).length).toBe(1);
    await expect.poll(() => hung.received()).toBe(1);
    let idle = false;
    void sb.deliveriesIdle().then(() => (idle = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle).toBe(false);
    expect((await call('POST', '/_sandbox/reset', {})).status).toBe(200);
    await sb.deliveriesIdle();
    expect(await sb.deliveries()).toEqual([]);
    expect(failing.received()).toBe(1);
  });
});
