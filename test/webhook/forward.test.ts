import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { forward, forwardableHeaders, forwardsToItself } from '../../src/webhook/forward.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

function app(status: number): Promise<{ url: string; seen: { headers: IncomingHttpHeaders; body: Buffer }[] }> {
  const seen: { headers: IncomingHttpHeaders; body: Buffer }[] = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(status).end();
    });
  });
  return new Promise((resolve) => server!.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/hook`, seen })));
}

describe('forward', () => {
  it('drops hop-by-hop headers (and those Connection names) and keeps the rest', () => {
    expect(
      forwardableHeaders({ host: 'a', connection: 'keep-alive, x-hop', 'x-hop': '1', 'content-length': '5', 'transfer-encoding': 'chunked', 'x-smashsend-signature': 's', 'content-type': 'application/json' }),
    ).toEqual({ 'x-smashsend-signature': 's', 'content-type': 'application/json' });
  });

  it("sends the exact bytes with a correct Content-Length and reports the app's status", async () => {
    const { url, seen } = await app(202);
    const body = Buffer.from('{"a":  1}\n\u00e9');
    const result = await forward(url, body, { 'x-smashsend-signature': 'abc', 'content-type': 'application/json' }, { timeoutMs: 2000 });
    expect(result).toMatchObject({ url, status: 202 });
    expect(seen[0]!.body.equals(body)).toBe(true);
    expect(seen[0]!.headers['content-length']).toBe(String(body.length));
    expect(seen[0]!.headers['x-smashsend-signature']).toBe('abc');
  });

  it('reports a refused connection instead of throwing', async () => {
    const { url } = await app(200);
    await new Promise<void>((r) => server!.close(() => r()));
    server = undefined;
    const result = await forward(url, Buffer.from('{}'), {}, { timeoutMs: 2000 });
    expect(result.status).toBeUndefined();
    expect(result.error).toMatch(/connection refused/);
  });
});

describe('forwardsToItself', () => {
  it.each([
    ['http://localhost:4242/hooks', '127.0.0.1', 4242, true],
    ['http://127.0.0.1:4242/', '127.0.0.1', 4242, true],
    ['http://127.1.2.3:4242/', '127.0.0.1', 4242, true],
    ['http://[::1]:4242/', '127.0.0.1', 4242, true],
    ['http://app.localhost:4242/', '127.0.0.1', 4242, true],
    ['http://192.168.1.5:4242/', '192.168.1.5', 4242, true],
    ['http://localhost:80/', '127.0.0.1', 80, true],
    ['http://localhost:3000/hooks', '127.0.0.1', 4242, false],
    ['http://example.com:4242/', '127.0.0.1', 4242, false],
    ['http://localhost:4242/', '127.0.0.1', 0, false],
    ['https://localhost/', '127.0.0.1', 80, false],
  ])('%s from %s:%i → %s', (url, host, port, expected) => {
    expect(forwardsToItself(url, host, port)).toBe(expected);
  });
});
