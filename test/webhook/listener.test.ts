import { request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startListener, type Delivery, type RunningListener } from '../../src/webhook/listener.js';
import { sign } from '../../src/webhook/signature.js';

const token = 'wht_listener_token_1';
const body = '{"event":"CONTACT_CREATED","createdAt":"2026-01-01T00:00:00.000Z","data":{"contact":{"id":"ctc_1","email":"a@example.com"}}}';

let listener: RunningListener | undefined;
afterEach(async () => {
  await listener?.close();
  listener = undefined;
});

async function start(maxBody = 4096): Promise<{ url: string; deliveries: Delivery[] }> {
  const deliveries: Delivery[] = [];
  listener = await startListener({ host: '127.0.0.1', port: 0, token, maxBody, onDelivery: (d) => void deliveries.push(d) });
  return { url: listener.url, deliveries };
}

/** A raw request through node:http so headers and bytes are exactly what the test says. */
function post(url: string, path: string, payload: string | Buffer, headers: Record<string, string> = {}, method = 'POST'): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Closes the listener: close() resolves once every delivery it answered has been handed to onDelivery. */
const settle = async () => {
  await listener?.close();
  listener = undefined;
};

describe('webhook listener', () => {
  it('answers 200 to a valid delivery on any path and hands over the exact bytes and the parsed event', async () => {
    const { url, deliveries } = await start();
    const res = await post(url, '/any/path?x=1', body, { 'X-Smashsend-Signature': sign(token, body) });
    expect(res).toEqual({ status: 200, body: { received: true, event: 'CONTACT_CREATED' } });
    await settle();
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ path: '/any/path?x=1', status: 200, verified: true, event: { event: 'CONTACT_CREATED', shape: 'spec' } });
    expect(deliveries[0]!.body!.toString()).toBe(body);
  });

  it('accepts the observed envelope shape and any X-*-Signature header', async () => {
    const { url, deliveries } = await start();
    const observed = '{"event":"CONTACT_UPDATED","payload":{"contact":{"email":"b@example.com"}},"timestamp":1767225600000,"version":1}';
    const res = await post(url, '/', observed, { 'X-Service-Signature': sign(token, observed) });
    expect(res.status).toBe(200);
    await settle();
    expect(deliveries[0]!.event).toMatchObject({ event: 'CONTACT_UPDATED', shape: 'observed', createdAt: '2026-01-01T00:00:00.000Z' });
  });

  it('refuses a missing header, a wrong token, a tampered and a re-serialised body with 401 saying which, then keeps serving', async () => {
    const { url, deliveries } = await start();
    const missing = await post(url, '/', body);
    expect(missing.status).toBe(401);
    expect(missing.body.message).toMatch(/^no signature header/);

    const wrongToken = await post(url, '/', body, { 'X-Smashsend-Signature': sign('wht_someone_else', body) });
    expect(wrongToken.status).toBe(401);
    expect(wrongToken.body.message).toBe('signature does not match: wrong token, or the body changed after it was signed');

    const tampered = await post(url, '/', body.replace('a@example.com', 'z@example.com'), { 'X-Smashsend-Signature': sign(token, body) });
    expect(tampered.status).toBe(401);

    const pretty = JSON.stringify(JSON.parse(body), null, 2);
    const reserialised = await post(url, '/', pretty, { 'X-Smashsend-Signature': sign(token, body) });
    expect(reserialised.status).toBe(401);
    expect(reserialised.body.message).toContain('re-serialised');

    expect((await post(url, '/', body, { 'X-Smashsend-Signature': sign(token, body) })).status).toBe(200);
    await settle();
    expect(deliveries.map((d) => d.status)).toEqual([401, 401, 401, 401, 200]);
  });

  it('refuses an oversized body with 413, whether declared or streamed, and keeps serving', async () => {
    const { url, deliveries } = await start(200);
    const big = JSON.stringify({ event: 'CONTACT_CREATED', createdAt: 'x', data: { pad: 'x'.repeat(500) } });
    const declared = await post(url, '/', big, { 'X-Smashsend-Signature': sign(token, big) });
    expect(declared.status).toBe(413);
    expect(declared.body.message).toContain('200-byte limit');
    const streamed = await post(url, '/', big, { 'X-Smashsend-Signature': sign(token, big), 'Transfer-Encoding': 'chunked' });
    expect(streamed.status).toBe(413);
    expect((await post(url, '/', body, { 'X-Smashsend-Signature': sign(token, body) })).status).toBe(200);
    await settle();
    expect(deliveries.map((d) => d.status)).toEqual([413, 413, 200]);
  });

  it('answers 401 to a wrongly signed body nested too deeply to re-serialise, and records it', async () => {
    const { url, deliveries } = await start(1024 * 1024);
    const deep = `${'['.repeat(30_000)}${']'.repeat(30_000)}`;
    const res = await post(url, '/', deep, { 'X-Smashsend-Signature': sign(token, body) });
    expect(res).toMatchObject({ status: 401, body: { message: 'signature does not match: wrong token, or the body changed after it was signed' } });
    await settle();
    expect(deliveries.map((d) => d.status)).toEqual([401]);
  });

  it('answers 405 to other methods and 400 to a signed body that is not an event', async () => {
    const { url } = await start();
    expect((await post(url, '/', '', {}, 'GET')).status).toBe(405);
    const notEvent = '{"hello":"world"}';
    const res = await post(url, '/', notEvent, { 'X-Smashsend-Signature': sign(token, notEvent) });
    expect(res.status).toBe(400);
  });
});

describe('webhook listener: stalled bodies', () => {
  /** A request that sends its headers and 10 of its 1,000 bytes, then nothing; resolves when the listener closes it. */
  function stalled(url: string): { closed: Promise<void> } {
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(`POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-smashsend-signature: ${'0'.repeat(64)}\r\ncontent-length: 1000\r\n\r\n{"event":"`);
    return { closed: new Promise((resolve) => socket.on('close', () => resolve())) };
  }

  it('reads at most maxBodiesRead bodies at once: each new one closes the oldest stalled one, and a real delivery still gets its 200', async () => {
    const deliveries: Delivery[] = [];
    listener = await startListener({ host: '127.0.0.1', port: 0, token, maxBody: 4096, maxBodiesRead: 4, bodyTimeoutMs: 60_000, onDelivery: (d) => void deliveries.push(d) });
    const senders: Array<{ closed: Promise<void> }> = [];
    for (let i = 0; i < 10; i++) {
      senders.push(stalled(listener.url));
      // Each in turn, so "oldest" is well defined.
      await new Promise((r) => setTimeout(r, 20));
    }
    // The first six were pushed out by the four after them.
    await Promise.all(senders.slice(0, 6).map((s) => s.closed));
    const ok = await post(listener.url, '/', body, { 'x-smashsend-signature': sign(token, body) });
    expect(ok.status).toBe(200);
    await settle();
    expect(deliveries.map((d) => d.status)).toEqual([200]);
  });

  it('closes a body that has not arrived within bodyTimeoutMs of its headers', async () => {
    listener = await startListener({ host: '127.0.0.1', port: 0, token, maxBody: 4096, bodyTimeoutMs: 200, onDelivery: () => undefined });
    const sender = stalled(listener.url);
    // Without the bound, Node would hold it for its 300 s request timeout: the test would time out.
    await sender.closed;
  });
});
