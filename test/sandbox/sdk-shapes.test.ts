import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandbox, type Sandbox } from '../../src/sandbox/library.js';
import { parseEmailRequest } from '../../src/schema/email.js';
import { updateWebhookRequestSchema } from '../../src/schema/webhook.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({
    log: () => undefined,
    config: { templates: { order: { subject: 'Order {{order.id}}', html: '<p>{{user.name}} ordered {{order.items.0.title}} ({{count}})</p>' } } },
  });
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${sb.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${sb.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const raw = { from: 'shop@example.com', to: 'ada@customer.test', subject: 'Hi', html: '<p>Hi</p>' };

describe("the sandbox accepts the official SDK's documented shapes, stores and shows them", () => {
  test('replyTo as an array of addresses, on a raw email', async () => {
    const res = await call('POST', '/v1/emails', { ...raw, replyTo: ['support@example.com', 'sales@example.com'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const email = await sb.waitForEmail();
    expect(email.replyTo).toEqual(['support@example.com', 'sales@example.com']);
    expect(email.headers['reply-to']).toBe('support@example.com, sales@example.com');
    const page = await (await fetch(`${sb.baseUrl}/inbox/${email.id}?view=details`, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('support@example.com, sales@example.com');
  });

  test('replyTo (one or several) and nested variables on a templated email; nested values fill dotted placeholders', async () => {
    const variables = { user: { name: 'Ada <Lovelace>' }, order: { id: 'A-7', items: [{ title: 'Tea' }] }, count: 2 };
    const res = await call('POST', '/v1/emails', { template: 'order', to: 'ada@customer.test', variables, replyTo: 'orders@example.com' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const several = await call('POST', '/v1/emails', { template: 'order', to: 'bo@customer.test', variables, replyTo: ['a@example.com', 'b@example.com'] });
    expect(several.status).toBe(200);
    const [one, two] = await sb.waitForEmails(2);
    expect(one).toMatchObject({ subject: 'Order A-7', html: '<p>Ada &lt;Lovelace&gt; ordered Tea (2)</p>', variables, replyTo: 'orders@example.com' });
    expect(two!.replyTo).toEqual(['a@example.com', 'b@example.com']);
  });

  test('html: "" is a string, as the spec asks: accepted (the text is empty too)', async () => {
    const res = await call('POST', '/v1/emails', { ...raw, html: '' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await sb.waitForEmail()).toMatchObject({ html: '', text: '' });
  });

  test('still refused: what the spec or the SDK says is invalid', async () => {
    for (const [body, detail] of [
      [{ ...raw, replyTo: [] }, 'replyTo'],
      [{ ...raw, replyTo: ['not an address'] }, 'replyTo.0'],
      [{ ...raw, replyTo: 42 }, 'replyTo'],
      [{ ...raw, html: 7 }, 'html'],
      [{ template: 'order', to: 'ada@customer.test', variables: 'x' }, 'variables'],
      [{ template: 'order', to: 'ada@customer.test', variables: [1] }, 'variables'],
    ] as const) {
      const res = await call('POST', '/v1/emails', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toContain(detail);
      expect(res.body.message).toMatch(/; the payload must match the raw email schema \(from, to, subject, html\) or the templated email schema \(template, to, variables\)$/);
      expect(res.body.docsUrl).toBeDefined();
    }
  });

  test('a webhook with a description or displayName; updated with url, status or token; a PAUSED one gets no deliveries', async () => {
    const got: string[] = [];
    const server: Server = createServer((req, res) => {
      got.push(req.url!);
      req.resume();
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const made = await call('POST', '/v1/webhooks', { url: `${base}/one`, events: ['CONTACT_CREATED'], displayName: 'Orders', description: 'orders app' });
      expect(made.status, JSON.stringify(made.body)).toBe(200);
      expect(made.body.webhook).toMatchObject({ url: `${base}/one`, displayName: 'Orders', description: 'orders app', status: 'ACTIVE' });
      const id = made.body.webhook.id as string;

      const moved = await call('POST', `/v1/webhooks/${id}`, { url: `${base}/two`, token: 'wht_new_token_123' });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      expect(moved.body.webhook).toMatchObject({ url: `${base}/two`, token: 'wht_new_token_123', events: ['CONTACT_CREATED'], status: 'ACTIVE' });
      expect(moved.body.webhook.updatedAt).toEqual(expect.any(String));

      await sb.trigger('CONTACT_CREATED', { email: 'one@customer.test' });
      const [delivery] = await sb.waitForDeliveries(1);
      expect(delivery!.url).toBe(`${base}/two`);

      const paused = await call('POST', `/v1/webhooks/${id}`, { status: 'PAUSED' });
      expect(paused.body.webhook.status).toBe('PAUSED');
      expect((await call('GET', '/v1/webhooks')).body.webhooks.items[0]).toMatchObject({ status: 'PAUSED', displayName: 'Orders' });
      await sb.trigger('CONTACT_CREATED', { email: 'two@customer.test' });
      expect(await sb.waitForIdle()).toHaveLength(1);

      for (const bad of [{}, { status: 'SLEEPING' }, { url: 'ftp://x' }, { token: 'short' }, { events: [] }]) {
        expect((await call('POST', `/v1/webhooks/${id}`, bad)).status, JSON.stringify(bad)).toBe(400);
      }
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('the CLI still sends only what the spec promises (its schemas stay strict)', () => {
  test('a replyTo array, replyTo on a templated email, nested variables and an empty html are refused before sending', () => {
    expect(parseEmailRequest({ ...raw, replyTo: ['a@example.com'] }).ok).toBe(false);
    expect(parseEmailRequest({ template: 'order', to: 'ada@customer.test', replyTo: 'a@example.com' }).ok).toBe(false);
    expect(parseEmailRequest({ template: 'order', to: 'ada@customer.test', variables: { user: { name: 'Ada' } } }).ok).toBe(false);
    expect(parseEmailRequest({ ...raw, html: '' }).ok).toBe(false);
    expect(updateWebhookRequestSchema.safeParse({ url: 'https://example.com/hook' }).success).toBe(false);
  });
});
