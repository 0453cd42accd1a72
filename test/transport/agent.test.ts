import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { isLoopback } from '../../src/config/url.js';
import { createDispatcher, proxySettings } from '../../src/transport/agent.js';
import { createHttpTransport } from '../../src/transport/http.js';
import { TimeoutError } from '../../src/transport/index.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function listen(handler: (req: IncomingMessage) => unknown): Promise<string> {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(handler(req)));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function get(baseUrl: string, env: Record<string, string>) {
  const dispatcher = await createDispatcher(baseUrl, env);
  const t = createHttpTransport({ baseUrl, apiKey: 'sk_live_proxyproxyproxy1', dispatcher, userAgent: 'mailroom/test', timeoutMs: 2_000, maxRetries: 0 });
  try {
    return await t.request({ method: 'GET', path: '/v1/api-keys/check' });
  } finally {
    await t.close();
  }
}

describe('proxy support', () => {
  it('tunnels requests for a remote API through HTTP_PROXY (CONNECT)', async () => {
    const apiRequests: string[] = [];
    const api = await listen((req) => {
      apiRequests.push(`${req.method} ${req.url} host=${req.headers.host} auth=${req.headers.authorization}`);
      return { status: 'SUCCEED' };
    });
    // A CONNECT proxy that plays DNS too: every tunnel leads to the local API above.
    const tunnels: string[] = [];
    const proxyServer = createServer((_req, res) => res.writeHead(405).end());
    proxyServer.on('connect', (req: IncomingMessage, client, head: Buffer) => {
      tunnels.push(req.url ?? '');
      const upstream = connect(Number(new URL(api).port), '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    servers.push(proxyServer);
    await new Promise<void>((resolve) => proxyServer.listen(0, '127.0.0.1', resolve));
    const proxy = `http://127.0.0.1:${(proxyServer.address() as AddressInfo).port}`;

    const res = await get('http://api.smashsend.test', { HTTP_PROXY: proxy });
    expect(res.body).toEqual({ status: 'SUCCEED' });
    expect(tunnels).toEqual(['api.smashsend.test:80']);
    expect(apiRequests).toEqual(['GET /v1/api-keys/check host=api.smashsend.test auth=Bearer sk_live_proxyproxyproxy1']);
  });

  it('times out even when the proxy never answers CONNECT, and closes without hanging', async () => {
    const stuck = createServer();
    const held: Duplex[] = [];
    stuck.on('connect', (_req: IncomingMessage, socket: Duplex) => void held.push(socket));
    servers.push(stuck);
    await new Promise<void>((resolve) => stuck.listen(0, '127.0.0.1', resolve));
    const baseUrl = 'http://api.smashsend.test';
    const dispatcher = await createDispatcher(baseUrl, { HTTP_PROXY: `http://127.0.0.1:${(stuck.address() as AddressInfo).port}` });
    const t = createHttpTransport({ baseUrl, dispatcher, userAgent: 'mailroom/test', timeoutMs: 300, maxRetries: 0 });
    const started = Date.now();
    const err = await t.request({ method: 'GET', path: '/v1/api-keys/check' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(Date.now() - started).toBeLessThan(2_000);
    await t.close();
    for (const socket of held) socket.destroy();
  });

  it('never proxies loopback (the sandbox), whatever the proxy variables say', async () => {
    const api = await listen(() => ({ status: 'SUCCEED', via: 'direct' }));
    const res = await get(api, { HTTP_PROXY: 'http://127.0.0.1:9', HTTPS_PROXY: 'http://127.0.0.1:9' });
    expect(res.body).toEqual({ status: 'SUCCEED', via: 'direct' });
  });

  it('reads the variables in either case, HTTPS_PROXY defaulting to HTTP_PROXY', () => {
    expect(proxySettings({})).toBeUndefined();
    expect(proxySettings({ https_proxy: 'http://p:1', no_proxy: 'internal.test' })).toEqual({ httpsProxy: 'http://p:1', noProxy: 'internal.test' });
    expect(proxySettings({ HTTP_PROXY: 'http://p:2' })).toEqual({ httpProxy: 'http://p:2', httpsProxy: 'http://p:2' });
  });

  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['app.localhost', true],
    ['LOCALHOST', true],
    ['[::1]', true],
    ['api.smashsend.com', false],
    ['10.0.0.1', false],
    // IPv4-mapped loopback, as written and as URL parsing writes it, and as a socket reports it
    ['[::ffff:127.0.0.1]', true],
    ['[::ffff:7f00:1]', true],
    ['::ffff:127.0.0.1', true],
    ['[::ffff:a00:1]', false],
    // the unspecified addresses mean "any interface" to a server: never treated as loopback
    ['0.0.0.0', false],
    ['[::]', false],
    // a DNS name that only starts like an address
    ['127.example.com', false],
    ['127.0.0.1.nip.io', false],
  ])('isLoopback(%s) = %s', (host, expected) => {
    expect(isLoopback(host)).toBe(expected);
  });
});
