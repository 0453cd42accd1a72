import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { offMachine } from '../../src/sandbox/deliveries.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

// The sandbox promises nothing leaves the machine: by default it delivers webhooks only to this
// machine's hosts and records the others as not delivered, with why. These tests connect to
// nothing beyond loopback: every socket the process opens while they run is recorded and checked.

const sockets: string[] = [];
const onSocket = (message: unknown) => {
  const socket = (message as { socket: Socket }).socket;
  // Where it tried to go: each address it connected or tried to, or the name it could not resolve.
  socket.on('connectionAttempt', (ip: string) => sockets.push(ip));
  socket.once('connect', () => sockets.push(String(socket.remoteAddress)));
  socket.once('lookup', (_err: unknown, _address: unknown, _family: unknown, host: string) => sockets.push(String(host)));
  socket.once('error', (err: NodeJS.ErrnoException & { hostname?: string }) => sockets.push(`${err.code} ${err.hostname ?? ''}`));
};
/** undici (the sandbox's delivery client) says where it connects before it resolves anything; TLS sockets do not go through net's channel. */
const onConnect = (message: unknown) => sockets.push((message as { connectParams: { hostname: string } }).connectParams.hostname);
const watch = () => {
  subscribe('net.client.socket', onSocket);
  subscribe('undici:client:beforeConnect', onConnect);
};
const unwatch = () => {
  unsubscribe('net.client.socket', onSocket);
  unsubscribe('undici:client:beforeConnect', onConnect);
};
const open: TestSandbox[] = [];
afterEach(async () => {
  unwatch();
  sockets.length = 0;
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function sandbox(allowRemote?: boolean) {
  const sb = await withSandbox({ config: { deliveries: { retryDelaysMs: [10], timeoutMs: 2000, ...(allowRemote === undefined ? {} : { allowRemote }) } } });
  open.push(sb);
  return sb;
}

async function receiver() {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push(body);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { port: (server.address() as AddressInfo).port, bodies, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const fire = (sb: TestSandbox) => client(sb)('POST', '/_sandbox/events', { event: 'CONTACT_CREATED', email: 'ada@example.com' });

describe('sandbox webhook deliveries stay on this machine', () => {
  it('a webhook off the machine: recorded as not delivered, with why, never retried, and no connection is made', async () => {
    const sb = await sandbox();
    const call = client(sb);
    expect((await call('POST', '/v1/webhooks', { url: 'https://example.com/h', events: ['CONTACT_CREATED'] })).status).toBe(200);
    watch();
    expect((await fire(sb)).status).toBe(200);
    await sb.deliveriesIdle();
    unwatch();
    expect(sockets.filter((s) => s !== '127.0.0.1' && s !== 'localhost')).toEqual([]);
    const [record, ...more] = await sb.deliveries();
    expect(more).toEqual([]);
    expect(record).toMatchObject({
      url: 'https://example.com/h',
      attempt: 1,
      error: 'not delivered',
      notDelivered: 'example.com is not on this machine: the sandbox delivers only to loopback, localhost and *.test hosts (start it with --allow-remote-webhooks to deliver elsewhere)',
    });
    expect(record!.statusCode).toBeUndefined();
    expect(record!.nextRetryAt).toBeUndefined();
    // Only the test's own calls to the sandbox, on loopback.
    expect(sockets.filter((s) => s !== '127.0.0.1' && s !== 'localhost')).toEqual([]);

    const page = await (await fetch(`${sb.baseUrl}/deliveries`)).text();
    expect(page).toContain('Not delivered to <code>https://example.com/h</code>');
    expect(page).toContain('<span>1 not delivered (off this machine)</span>');
  });

  it('another address of this machine that is not loopback (0.0.0.0) is refused too by default, and delivered with allowRemote', async () => {
    const rx = await receiver();
    try {
      for (const allowRemote of [undefined, true]) {
        const sb = await sandbox(allowRemote);
        await client(sb)('POST', '/v1/webhooks', { url: `http://0.0.0.0:${rx.port}/hook`, events: ['CONTACT_CREATED'] });
        await fire(sb);
        await sb.deliveriesIdle();
        const [record] = await sb.deliveries();
        if (allowRemote) expect(record).toMatchObject({ statusCode: 200 });
        else expect(record).toMatchObject({ error: 'not delivered', notDelivered: expect.stringMatching(/^0\.0\.0\.0 is not on this machine/) });
      }
      expect(rx.bodies).toHaveLength(1);
    } finally {
      await rx.close();
    }
  });

  it('which hosts are this machine: loopback, localhost, *.test; not a public name or another address', () => {
    for (const url of ['http://127.0.0.1:9/h', 'http://127.8.0.1/h', 'http://[::1]:9/h', 'http://localhost:3000/h', 'http://app.localhost/h', 'https://myapp.test/h', 'http://x.test./h']) {
      expect(offMachine(url), url).toBeUndefined();
    }
    for (const url of ['https://example.com/h', 'http://10.0.0.5/h', 'http://[::]:9/h', 'http://localhost.example.com/h', 'https://test.example/h', 'http://192.168.1.2:3000/h']) {
      expect(offMachine(url), url).toMatch(/ is not on this machine/);
    }
  });
});
