import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookHandler, Mailroom, ValidationError, verifySignature, WebhookSignatureError, type WebhookEvent } from '../../src/library/index.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';

interface Received {
  body: Buffer;
  headers: IncomingHttpHeaders;
}

const sign = (token: string, body: string) => createHmac('sha256', token).update(body).digest('hex');
const TOKEN = 'wht_librarytesttoken0123456789';

describe('receiving webhook deliveries through the library', () => {
  let sandbox: TestSandbox;
  let mailroom: Mailroom;
  let server: Server;
  const received: Received[] = [];
  beforeAll(async () => {
    sandbox = await withSandbox();
    mailroom = new Mailroom({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl, env: {} });
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ body: Buffer.concat(chunks), headers: req.headers });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    server.close();
    await mailroom.close();
    await sandbox.close();
  });

  it('a real delivery from the sandbox: verified and typed (known CONTACT_CREATED with its contact)', async () => {
    const hook = await mailroom.webhooks.create({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, events: ['CONTACT_CREATED'] });
    const res = await fetch(`${sandbox.baseUrl}/_sandbox/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event: 'CONTACT_CREATED', email: 'ada@example.com' }) });
    expect(res.status).toBe(200);
    await expect.poll(() => received.length).toBe(1);
    const delivery = received[0]!;
    const handle = createWebhookHandler({ token: hook.token! });
    const event: WebhookEvent = await handle({ body: delivery.body, headers: delivery.headers });
    expect(event.known).toBe(true);
    if (event.known && event.event === 'CONTACT_CREATED') expect(event.data.contact.email).toBe('ada@example.com');
    else expect.unreachable('a known CONTACT_CREATED event');
    expect(verifySignature(delivery.body, delivery.headers['x-smashsend-signature'] as string, hook.token!)).toBe(true);
    // The same delivery, its body re-serialised by a JSON parser: refused, and the reason says so.
    const reparsed = JSON.stringify(JSON.parse(delivery.body.toString('utf8')), null, 2);
    const err = (await handle({ body: reparsed, headers: delivery.headers }).catch((e: unknown) => e)) as WebhookSignatureError;
    expect(err).toBeInstanceOf(WebhookSignatureError);
    expect(err).toMatchObject({ reason: 'mismatch', statusCode: 401 });
    expect(err.message).toMatch(/re-serialised/);
    expect(verifySignature(reparsed, delivery.headers['x-smashsend-signature'] as string, hook.token!)).toBe(false);
  });

  it('accepts a fetch Headers object and the observed envelope; an unknown event is verified with known: false', async () => {
    const body = JSON.stringify({ event: 'CONTACT_TAG_ADDED', payload: { tag: 'vip' }, timestamp: 1_790_000_000 });
    const handle = createWebhookHandler({ token: TOKEN });
    const event = await handle({ body, headers: new Headers({ 'X-Smashsend-Signature': sign(TOKEN, body) }) });
    expect(event).toEqual({ known: false, event: 'CONTACT_TAG_ADDED', data: { tag: 'vip' }, createdAt: new Date(1_790_000_000_000).toISOString(), shape: 'observed' });
  });

  it('refuses a missing or malformed signature, a body that is no event, and (maxAgeMs) a replayed old delivery', async () => {
    const handle = createWebhookHandler({ token: TOKEN, maxAgeMs: 5 * 60_000, now: () => new Date('2026-11-23T12:00:00Z') });
    const body = JSON.stringify({ event: 'CONTACT_CREATED', createdAt: '2026-11-23T11:00:00Z', data: { contact: { id: 'c1', email: 'a@example.com', properties: {}, createdAt: '2026-11-23T11:00:00Z' } } });
    const reason = async (req: Parameters<typeof handle>[0]) => ((await handle(req).catch((e: unknown) => e)) as WebhookSignatureError).reason;
    expect(await reason({ body, headers: {} })).toBe('missing');
    expect(await reason({ body, headers: { 'x-smashsend-signature': 'abc' } })).toBe('malformed');
    expect(await reason({ body, headers: { 'x-smashsend-signature': sign(TOKEN, body) } })).toBe('too-old');
    expect(await reason({ body: 'not json', headers: { 'x-smashsend-signature': sign(TOKEN, 'not json') } })).toBe('not-an-event');
    const fresh = body.replaceAll('11:00:00Z', '11:58:00Z');
    expect(await handle({ body: fresh, headers: { 'X-Smashsend-Signature': `sha256=${sign(TOKEN, fresh)}` } })).toMatchObject({ known: true, event: 'CONTACT_CREATED' });
    // A time far ahead, or none, cannot be told from a replay either (a minute ahead is clock skew).
    const ahead = body.replaceAll('11:00:00Z', '12:30:00Z');
    const error = (await handle({ body: ahead, headers: { 'x-smashsend-signature': sign(TOKEN, ahead) } }).catch((e: unknown) => e)) as WebhookSignatureError;
    expect([error.reason, error.message]).toEqual(['too-old', 'the delivery was created at 2026-11-23T12:30:00Z, in 30 minutes, beyond the 60 s allowed for clock skew: refused as a possible replay (check this machine\'s clock)']);
    const untimed = JSON.stringify({ event: 'CONTACT_CREATED', payload: { contact: { email: 'a@example.com' } } });
    expect(await reason({ body: untimed, headers: { 'x-smashsend-signature': sign(TOKEN, untimed) } })).toBe('too-old');
    const skewed = body.replaceAll('11:00:00Z', '12:00:30Z');
    expect(await handle({ body: skewed, headers: { 'x-smashsend-signature': sign(TOKEN, skewed) } })).toMatchObject({ known: true });
  });

  it('refuses an empty token up front, and verifySignature says false for a missing header', () => {
    expect(() => createWebhookHandler({ token: '' })).toThrow(ValidationError);
    expect(() => verifySignature('{}', 'x', '')).toThrow(/token is empty/);
    expect(verifySignature('{}', undefined, TOKEN)).toBe(false);
    expect(verifySignature('{}', sign(TOKEN, '{}'), TOKEN)).toBe(true);
    expect(verifySignature(Buffer.from('{}'), sign(TOKEN, '{}').toUpperCase(), TOKEN)).toBe(true);
  });
});
