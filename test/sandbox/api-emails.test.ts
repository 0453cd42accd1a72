import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

const DOCS_URL = 'https://smashsend.com/docs/api/emails';
const raw = (over: Record<string, unknown> = {}) => ({ from: 'ops@example.com', to: 'ada@customer.test', subject: 'Hello', html: '<p>Hi <b>Ada</b></p>', ...over });
const days = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString();

let sb: TestSandbox;
let call: ReturnType<typeof client>;

beforeAll(async () => {
  sb = await withSandbox({
    config: {
      verifiedEmails: ['ceo@partner.test'],
      verifiedDomains: ['example.com', 'acme.test'],
      templates: { receipt: { from: 'billing@acme.test', subject: 'Receipt {{number}}', html: '<p>Total: {{total}}</p>' } },
    },
  });
  call = client(sb);
});
afterAll(() => sb.close());
beforeEach(async () => {
  expect((await call('POST', '/_sandbox/reset', {})).status).toBe(200);
});

describe('authentication', () => {
  test('a missing key answers 401 with the error body naming the scope', async () => {
    const res = await call('POST', '/v1/emails', raw(), { key: null });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ statusCode: 401, error: 'Unauthorized', message: expect.stringContaining('api_user') });
    expect(await sb.emails()).toEqual([]);
  });

  test('an unknown key answers 401 on every endpoint', async () => {
    for (const [method, path] of [
      ['POST', '/v1/emails'],
      ['POST', '/v1/emails/batch'],
      ['GET', '/v1/api-keys/check'],
      ['GET', `/v1/workspaces/${sb.workspaceId}/api-keys`],
      ['GET', '/v1/webhooks'],
      ['GET', '/v1/webhooks/wh_x'],
    ] as const) {
      const res = await call(method, path, undefined, { key: 'sk_live_not_a_key' });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body).toMatchObject({ statusCode: 401, error: 'Unauthorized', message: expect.stringContaining('Invalid API key') });
    }
  });

  test('responses carry an x-request-id', async () => {
    const res = await call('GET', '/v1/api-keys/check');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  });
});

describe('POST /v1/emails', () => {
  test('a raw email answers the spec result and lands in the inbox with text generated from html', async () => {
    const res = await call('POST', '/v1/emails', raw({ groupBy: 'welcome-flow' }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      email: {
        id: expect.stringMatching(/^trs_/),
        messageId: expect.any(String),
        status: 'SENT',
        to: 'ada@customer.test',
        type: 'raw',
        from: 'ops@example.com',
        subject: 'Hello',
        groupBy: 'welcome-flow',
      },
    });
    const [caught] = await sb.emails();
    expect(caught).toMatchObject({
      id: res.body.email.id,
      status: 'SENT',
      html: '<p>Hi <b>Ada</b></p>',
      text: 'Hi Ada',
      settings: { trackClicks: true, trackOpens: false },
    });
    // The text is generated when first read; its place among the keys is where it always was.
    expect(Object.keys(caught!)).toEqual(['id', 'messageId', 'status', 'type', 'to', 'from', 'subject', 'html', 'text', 'settings', 'createdAt', 'groupBy', 'requestId']);
    expect(await sb.emails()).toEqual([caught]);
  });

  test('a given text is kept and tracking settings are honoured', async () => {
    await call('POST', '/v1/emails', raw({ text: 'plain', settings: { trackClicks: false, trackOpens: true } }));
    const [caught] = await sb.emails();
    expect(caught).toMatchObject({ text: 'plain', settings: { trackClicks: false, trackOpens: true } });
  });

  test('"Name <address>" senders, verified addresses and verified domains are accepted', async () => {
    for (const from of ['Ops Team <ops@example.com>', 'ceo@partner.test', 'x@ACME.test']) {
      const res = await call('POST', '/v1/emails', raw({ from }));
      expect(res.status, from).toBe(200);
      expect(res.body.email.from).toBe(from);
    }
  });

  test('an unverified sender answers 400 with allowedEmails, allowedDomains and docsUrl', async () => {
    const res = await call('POST', '/v1/emails', raw({ from: 'Mallory <m@evil.test>' }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: expect.stringContaining('m@evil.test'),
      allowedEmails: ['ceo@partner.test'],
      allowedDomains: ['example.com', 'acme.test'],
      docsUrl: DOCS_URL,
    });
    expect(await sb.emails()).toEqual([]);
  });

  test.each([
    ['a missing field', raw({ html: undefined }), 'html'],
    ['a wrong type', raw({ subject: 42 }), 'subject'],
    ['an unknown field', raw({ colour: 'red' }), 'colour'],
    ['a bad address', raw({ to: 'not-an-address' }), 'to'],
    ['a non-object body', [raw()], 'JSON object'],
  ])('%s answers 400 invalid payload naming it', async (_what, body, named) => {
    const res = await call('POST', '/v1/emails', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining(named), docsUrl: DOCS_URL });
  });

  test('a templated email renders its template with variables, escaped in html', async () => {
    const res = await call('POST', '/v1/emails', { template: 'receipt', to: 'bo@customer.test', variables: { number: 'R-7', total: '<5 €>' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      email: { id: expect.stringMatching(/^trs_/), messageId: expect.any(String), status: 'SENT', to: 'bo@customer.test', type: 'templated', template: 'receipt' },
    });
    const [caught] = await sb.emails();
    expect(caught).toMatchObject({
      template: 'receipt',
      from: 'billing@acme.test',
      subject: 'Receipt R-7',
      html: '<p>Total: &lt;5 €&gt;</p>',
      text: 'Total: <5 €>',
      settings: { trackClicks: true, trackOpens: true },
    });
    expect(Object.keys(caught!)).toEqual(['id', 'messageId', 'status', 'type', 'to', 'template', 'subject', 'html', 'text', 'from', 'variables', 'settings', 'createdAt', 'requestId']);
  });

  test('the built-in welcome template works without variables', async () => {
    const res = await call('POST', '/v1/emails', { template: 'welcome', to: 'bo@customer.test' });
    expect(res.status).toBe(200);
  });

  test('an unknown template answers 400', async () => {
    const res = await call('POST', '/v1/emails', { template: 'nope', to: 'bo@customer.test', variables: {} });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining('nope') });
  });

  test('sendAt in the future is scheduled; in the past or 91 days ahead is rejected', async () => {
    const scheduled = await call('POST', '/v1/emails', raw({ sendAt: days(3) }));
    expect(scheduled.status).toBe(200);
    expect(scheduled.body.email.status).toBe('SCHEDULED');

    const past = await call('POST', '/v1/emails', raw({ sendAt: days(-1) }));
    expect(past.status).toBe(400);
    expect(past.body).toMatchObject({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining('past') });

    const far = await call('POST', '/v1/emails', raw({ sendAt: days(91) }));
    expect(far.status).toBe(400);
    expect(far.body).toMatchObject({ statusCode: 400, message: expect.stringContaining('90 days') });

    expect((await call('POST', '/v1/emails', raw({ sendAt: days(89) }))).status).toBe(200);
    expect((await sb.emails()).map((e) => e.status)).toEqual(['SCHEDULED', 'SCHEDULED']);
  });

  test('a scheduled email moves to SENT in the inbox when due', async () => {
    const res = await call('POST', '/v1/emails', raw({ sendAt: new Date(Date.now() + 400).toISOString() }));
    expect(res.body.email.status).toBe('SCHEDULED');
    await expect.poll(async () => (await sb.emails())[0]?.status, { timeout: 3000 }).toBe('SENT');
  });

  test('a reused idempotency key returns the first result and sends nothing new', async () => {
    const first = await call('POST', '/v1/emails', raw({ idempotencyKey: 'order-1' }));
    const again = await call('POST', '/v1/emails', raw({ idempotencyKey: 'order-1', subject: 'changed' }));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await sb.emails()).toHaveLength(1);
  });
});

describe('POST /v1/emails/batch', () => {
  test('a mixed batch with one unverified sender: one failed with the single-send body, the rest successful', async () => {
    const emails = [raw({ to: 'a@c.test' }), raw({ from: 'x@evil.test' }), { template: 'welcome', to: 'b@c.test', variables: { name: 'Bo' } }];
    const res = await call('POST', '/v1/emails/batch', { emails });
    expect(res.status).toBe(200);
    expect(res.body.emails.successful).toHaveLength(2);
    expect(res.body.emails.successful.map((e: { type: string }) => e.type)).toEqual(['raw', 'templated']);
    const single = await call('POST', '/v1/emails', raw({ from: 'x@evil.test' }));
    expect(res.body.emails.failed).toEqual([{ index: 1, ...single.body }]);
    expect(await sb.emails()).toHaveLength(2);
  });

  test('51 entries and 0 entries are rejected whole', async () => {
    for (const n of [51, 0]) {
      const res = await call('POST', '/v1/emails/batch', { emails: Array.from({ length: n }, (_, i) => raw({ to: `u${i}@c.test` })) });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining(`got ${n}`), docsUrl: DOCS_URL });
    }
    expect(await sb.emails()).toEqual([]);
  });

  test('50 entries are accepted', async () => {
    const res = await call('POST', '/v1/emails/batch', { emails: Array.from({ length: 50 }, (_, i) => raw({ to: `u${i}@c.test` })) });
    expect(res.status).toBe(200);
    expect(res.body.emails.successful).toHaveLength(50);
    expect(res.body.emails.failed).toEqual([]);
  });

  test('a batch body that is not { emails: [...] } is an invalid payload', async () => {
    for (const body of [{ emails: 'x' }, { emails: [raw()], extra: 1 }, [raw()]]) {
      const res = await call('POST', '/v1/emails/batch', body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', docsUrl: DOCS_URL });
    }
  });

  test('invalid entries fail alone with their index', async () => {
    const res = await call('POST', '/v1/emails/batch', { emails: [raw({ subject: 1 }), raw(), raw({ sendAt: days(91) })] });
    expect(res.body.emails.successful).toHaveLength(1);
    expect(res.body.emails.failed).toEqual([
      { index: 0, statusCode: 400, error: 'Bad Request', message: expect.stringContaining('subject'), docsUrl: DOCS_URL },
      { index: 2, statusCode: 400, error: 'Bad Request', message: expect.stringContaining('90 days'), docsUrl: DOCS_URL },
    ]);
  });

  test('idempotency applies per entry, across batches and single sends', async () => {
    const first = await call('POST', '/v1/emails/batch', { emails: [raw({ idempotencyKey: 'k1' }), raw({ idempotencyKey: 'k2' })] });
    const again = await call('POST', '/v1/emails/batch', { emails: [raw({ idempotencyKey: 'k1' }), raw({ idempotencyKey: 'k2' }), raw({ idempotencyKey: 'k3' })] });
    expect(again.body.emails.successful.slice(0, 2)).toEqual(first.body.emails.successful);
    const single = await call('POST', '/v1/emails', raw({ idempotencyKey: 'k3' }));
    expect(single.body.email).toEqual(again.body.emails.successful[2]);
    expect(await sb.emails()).toHaveLength(3);
  });
});

describe('limits', () => {
  test('the monthly limit answers 403 once reached, and fails the entries beyond it in a batch', async () => {
    const limited = await withSandbox({ config: { monthlyLimit: 3 } });
    try {
      const call2 = client(limited);
      const batch = await call2('POST', '/v1/emails/batch', { emails: [raw(), raw(), raw({ idempotencyKey: 'i' }), raw()] });
      expect(batch.body.emails.successful).toHaveLength(3);
      expect(batch.body.emails.failed).toEqual([{ index: 3, statusCode: 403, error: 'Forbidden', message: expect.stringContaining('Monthly sending limit reached') }]);
      const single = await call2('POST', '/v1/emails', raw());
      expect(single.status).toBe(403);
      expect(single.body).toEqual({ statusCode: 403, error: 'Forbidden', message: expect.stringContaining('Monthly sending limit reached') });
      const whole = await call2('POST', '/v1/emails/batch', { emails: [raw()] });
      expect(whole.status).toBe(403);
      // An idempotent repeat of an accepted email still answers its first result.
      expect((await call2('POST', '/v1/emails', raw({ idempotencyKey: 'i' }))).status).toBe(200);
      // So does a retried batch (a lost answer): repeats get their first result, new entries the 403.
      const retried = await call2('POST', '/v1/emails/batch', { emails: [raw({ idempotencyKey: 'i' }), raw()] });
      expect(retried.status).toBe(200);
      expect(retried.body.emails.successful).toEqual([batch.body.emails.successful[2]]);
      expect(retried.body.emails.failed).toEqual([{ index: 1, statusCode: 403, error: 'Forbidden', message: expect.stringContaining('Monthly sending limit reached') }]);
      expect(await limited.emails()).toHaveLength(3);
    } finally {
      await limited.close();
    }
  });

  test('the rate limit answers 429 with Retry-After once exceeded, per key', async () => {
    // One request a second: eight at once cannot all pass, however slow the machine.
    const limited = await withSandbox({ config: { rateLimit: 1 } });
    try {
      const call2 = client(limited);
      const answers = await Promise.all(Array.from({ length: 8 }, () => call2('GET', '/v1/api-keys/check')));
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
      expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
      const limitedAnswer = answers.find((a) => a.status === 429);
      expect(limitedAnswer).toBeDefined();
      expect(limitedAnswer!.body).toEqual({ statusCode: 429, error: 'Too Many Requests', message: expect.stringContaining('Rate limit') });
      expect(Number(limitedAnswer!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // The IETF draft's fields on every limited answer, 200 or 429; not the older ones.
      for (const a of answers) {
        expect(a.headers.get('ratelimit-policy')).toBe('"default";q=1;w=1');
        expect(a.headers.get('ratelimit')).toMatch(/^"default";r=0;t=1$/);
        for (const old of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(a.headers.get(old)).toBeNull();
      }
      // Inspection endpoints are never limited.
      const inspection = await call2('GET', '/_sandbox/emails');
      expect(inspection.status).toBe(200);
      expect(inspection.headers.get('ratelimit')).toBeNull();
    } finally {
      await limited.close();
    }
  });
});
