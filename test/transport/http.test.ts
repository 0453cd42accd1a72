import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, ConnectionError, TimeoutError } from '../../src/transport/index.js';
import { createHttpTransport, type HttpTransportOptions } from '../../src/transport/http.js';
import { exitCodeOf } from '../../src/exit-codes.js';

const BASE = 'https://api.test';
const KEY = 'sk_live_0123456789abcdefWXYZ';

let agent: MockAgent;
beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
});
afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
});

function transport(extra: Partial<HttpTransportOptions> = {}) {
  const waits: number[] = [];
  const t = createHttpTransport({
    baseUrl: BASE,
    apiKey: KEY,
    dispatcher: agent,
    ownsDispatcher: false,
    userAgent: 'mailroom/9.9.9',
    timeoutMs: 2_000,
    maxRetries: 3,
    wait: async (ms) => void waits.push(ms),
    ...extra,
  });
  return { t, waits };
}

describe('transport wire', () => {
  it('sends the bearer key, user agent, JSON body and query to the exact path', async () => {
    const seen: { headers: Record<string, string>; body: unknown; path: string }[] = [];
    agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/v1/webhooks'), method: 'POST' })
      .reply(200, (opts) => {
        seen.push({ headers: opts.headers as Record<string, string>, body: JSON.parse(String(opts.body)), path: opts.path });
        return { webhook: { id: 'wh_1' } };
      }, { headers: { 'content-type': 'application/json', 'x-request-id': 'req_42' } });
    const { t } = transport();
    const res = await t.request({ method: 'POST', path: '/v1/webhooks', query: { a: 1, b: undefined, c: 'x y' }, body: { url: 'https://h.test', events: ['CONTACT_CREATED'] } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ webhook: { id: 'wh_1' } });
    expect(res.requestId).toBe('req_42');
    expect(seen).toHaveLength(1);
    expect(seen[0]?.path).toBe('/v1/webhooks?a=1&c=x+y');
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen[0]?.headers['user-agent']).toBe('mailroom/9.9.9');
    expect(seen[0]?.headers['content-type']).toBe('application/json');
    expect(seen[0]?.body).toEqual({ url: 'https://h.test', events: ['CONTACT_CREATED'] });
  });

  it('keeps a path prefix of the base URL and sends no Authorization without a key', async () => {
    let auth: unknown = 'unset';
    agent.get(BASE).intercept({ path: '/proxy/v1/api-keys/check', method: 'GET' }).reply(200, (opts) => {
      auth = (opts.headers as Record<string, string>).authorization;
      return { status: 'SUCCEED' };
    });
    const { t } = transport({ baseUrl: `${BASE}/proxy/`, apiKey: undefined });
    await t.request({ method: 'GET', path: '/v1/api-keys/check' });
    expect(auth).toBeUndefined();
  });
});

describe('retries', () => {
  it('retries an idempotent send after a 503 with the same idempotency key both times', async () => {
    const bodies: { idempotencyKey: string }[] = [];
    const pool = agent.get(BASE);
    pool.intercept({ path: '/v1/emails', method: 'POST' }).reply(503, (opts) => {
      bodies.push(JSON.parse(String(opts.body)));
      return { statusCode: 503, error: 'Service Unavailable', message: 'busy' };
    });
    pool.intercept({ path: '/v1/emails', method: 'POST' }).reply(200, (opts) => {
      bodies.push(JSON.parse(String(opts.body)));
      return { email: { id: 'trs_1' } };
    });
    const retries: unknown[] = [];
    const { t, waits } = transport();
    const res = await t.request({
      method: 'POST',
      path: '/v1/emails',
      body: { to: 'a@example.com', idempotencyKey: 'idem-123' },
      idempotent: true,
      onRetry: (info) => retries.push(info),
    });
    expect(res.body).toEqual({ email: { id: 'trs_1' } });
    expect(bodies.map((b) => b.idempotencyKey)).toEqual(['idem-123', 'idem-123']);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(0);
    expect(waits[0]).toBeLessThan(300);
    expect(retries).toEqual([{ attempt: 1, delayMs: waits[0], reason: 'HTTP 503', status: 503 }]);
  });

  it('never retries a POST that is not marked idempotent', async () => {
    agent.get(BASE).intercept({ path: '/v1/emails', method: 'POST' }).reply(503, { statusCode: 503, error: 'Service Unavailable', message: 'busy' });
    const { t, waits } = transport();
    const err = await t.request({ method: 'POST', path: '/v1/emails', body: { to: 'a@example.com' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(503);
    expect(exitCodeOf(err)).toBe(6);
    expect(waits).toEqual([]);
  });

  it('honours Retry-After: 1 on a 429 by actually waiting about a second', async () => {
    const pool = agent.get(BASE);
    pool.intercept({ path: '/v1/api-keys/check', method: 'GET' }).reply(429, { statusCode: 429, error: 'Too Many Requests', message: 'slow down' }, { headers: { 'retry-after': '1' } });
    pool.intercept({ path: '/v1/api-keys/check', method: 'GET' }).reply(200, { status: 'SUCCEED' });
    const { t } = transport({ wait: undefined });
    const started = performance.now();
    const res = await t.request({ method: 'GET', path: '/v1/api-keys/check' });
    const elapsed = performance.now() - started;
    expect(res.status).toBe(200);
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(2_500);
  });

  it('reads Retry-After given as an HTTP date', async () => {
    const pool = agent.get(BASE);
    const at = new Date(Date.now() + 5_000).toUTCString();
    pool.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(503, 'down', { headers: { 'retry-after': at } });
    pool.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(200, { webhooks: { items: [], hasMore: false } });
    const { t, waits } = transport();
    await t.request({ method: 'GET', path: '/v1/webhooks' });
    expect(waits[0]).toBeGreaterThan(3_000);
    expect(waits[0]).toBeLessThanOrEqual(5_000);
  });

  it('gives up after --max-retries with exponential, fully jittered delays and exit code 5 on 429', async () => {
    agent.get(BASE).intercept({ path: '/v1/api-keys/check', method: 'GET' }).reply(429, { statusCode: 429, error: 'Too Many Requests', message: 'Rate limit exceeded' }).times(4);
    const { t, waits } = transport({ random: () => 0.999 });
    const err = await t.request({ method: 'GET', path: '/v1/api-keys/check' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(exitCodeOf(err)).toBe(5);
    expect(waits).toEqual([299, 599, 1198]);
  });

  it('does not sleep through a Retry-After longer than a minute: it reports it', async () => {
    agent.get(BASE).intercept({ path: '/v1/api-keys/check', method: 'GET' }).reply(429, { message: 'later' }, { headers: { 'retry-after': '3600' } });
    const { t, waits } = transport();
    const err = (await t.request({ method: 'GET', path: '/v1/api-keys/check' }).catch((e: unknown) => e)) as ApiError;
    expect(waits).toEqual([]);
    expect(err.retryAfterMs).toBe(3_600_000);
    expect(err.hints).toContain('the API asks to wait 3600 s before retrying');
  });

  it('retries connection errors on GET and maps the last one to ConnectionError (exit 6)', async () => {
    agent.get(BASE).intercept({ path: '/v1/webhooks', method: 'GET' }).replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })).times(2);
    const { t, waits } = transport({ maxRetries: 1 });
    const err = await t.request({ method: 'GET', path: '/v1/webhooks' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(exitCodeOf(err)).toBe(6);
    expect(waits).toHaveLength(1);
  });
});

describe('timeouts', () => {
  it('turns a slow answer into TimeoutError (exit 6) without retrying a plain POST', async () => {
    agent.get(BASE).intercept({ path: '/v1/emails', method: 'POST' }).reply(200, { email: {} }).delay(1_000);
    const { t, waits } = transport({ timeoutMs: 50 });
    const started = performance.now();
    const err = await t.request({ method: 'POST', path: '/v1/emails', body: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(exitCodeOf(err)).toBe(6);
    expect((err as TimeoutError).message).toBe('no answer from https://api.test within 50 ms');
    expect(performance.now() - started).toBeLessThan(900);
    expect(waits).toEqual([]);
  });
});

describe('errors are the transport\'s, in no program\'s words', () => {
  // The library hands these to other programs: hints naming mailroom's flags or commands are the
  // CLI's to add (src/commands/shared/transport-hints.ts), not the transport's.
  const cliWords = /--[a-z]|`mailroom|MAILROOM_/;

  it('a connection failure, a timeout and a 401 without a hint from the caller name no flag, variable or command', async () => {
    agent.get(BASE).intercept({ path: '/v1/a', method: 'GET' }).replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    agent.get(BASE).intercept({ path: '/v1/b', method: 'GET' }).reply(200, {}).delay(1_000);
    agent.get(BASE).intercept({ path: '/v1/c', method: 'GET' }).reply(401, { statusCode: 401, error: 'Unauthorized', message: 'Invalid API key' });
    const { t } = transport({ maxRetries: 0, timeoutMs: 50 });
    const refused = await t.request({ method: 'GET', path: '/v1/a' }).catch((e: unknown) => e);
    const slow = await t.request({ method: 'GET', path: '/v1/b' }).catch((e: unknown) => e);
    const unauthorized = await t.request({ method: 'GET', path: '/v1/c' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConnectionError);
    expect(slow).toBeInstanceOf(TimeoutError);
    expect(unauthorized).toBeInstanceOf(ApiError);
    for (const err of [refused, slow, unauthorized] as ApiError[]) {
      expect(err.message).not.toMatch(cliWords);
      expect(err.hints.filter((hint) => cliWords.test(hint))).toEqual([]);
    }
    expect([(refused as ConnectionError).kind, (slow as TimeoutError).kind, (unauthorized as ApiError).kind]).toEqual(['connection', 'timeout', 'authentication']);
  });
});

describe('errors', () => {
  it('maps a 400 unverified sender to exit 4 with allowed senders, docs URL and request id', async () => {
    agent.get(BASE).intercept({ path: '/v1/emails', method: 'POST' }).reply(
      400,
      { statusCode: 400, error: 'Bad Request', message: 'From address is not verified', allowedEmails: ['me@ok.test'], allowedDomains: ['ok.test'], docsUrl: 'https://docs.test/senders' },
      { headers: { 'x-request-id': 'req_7' } },
    );
    const { t } = transport();
    const err = (await t.request({ method: 'POST', path: '/v1/emails', body: {} }).catch((e: unknown) => e)) as ApiError;
    expect(exitCodeOf(err)).toBe(4);
    expect(err.message).toBe('API 400 Bad Request: From address is not verified');
    expect(err.hints).toEqual(['allowed senders: me@ok.test', 'allowed domains: ok.test', 'docs: https://docs.test/senders']);
    expect(err.requestId).toBe('req_7');
  });

  it.each([
    [401, { message: 'Invalid API key' }, 3],
    [403, { message: 'API key lacks permissions' }, 3],
    [403, { message: 'Monthly sending limit reached' }, 5],
    [403, { message: 'This API key lacks permissions: API key "rate-limit-bot" has role VIEWER, which can only read' }, 3],
    [404, { message: 'Not found' }, 4],
    [409, { message: 'Conflict' }, 4],
    [422, { message: 'bad' }, 4],
  ])('maps %i %j to exit %i', async (status, body, code) => {
    agent.get(BASE).intercept({ path: '/v1/x', method: 'GET' }).reply(status, body);
    const { t } = transport({ authHint: 'check --api-key / MAILROOM_API_KEY' });
    const err = (await t.request({ method: 'GET', path: '/v1/x' }).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(exitCodeOf(err)).toBe(code);
    if (status === 401) expect(err.hints).toEqual(['check --api-key / MAILROOM_API_KEY']);
  });

  it('survives a non-JSON error page', async () => {
    agent.get(BASE).intercept({ path: '/v1/x', method: 'GET' }).reply(404, '<html>nope</html>');
    const { t } = transport();
    const err = (await t.request({ method: 'GET', path: '/v1/x' }).catch((e: unknown) => e)) as ApiError;
    expect(err.message).toBe('API 404 Not Found: <html>nope</html>');
  });
});

describe('verbose log', () => {
  it('a long body clipped in the middle of a secret field still hides it', async () => {
    const lines: string[] = [];
    const token = 'my-own-signing-token-0123456789';
    const pad = 'x'.repeat(4_000 - '{"note":"","token":"'.length - 10);
    agent.get(BASE).intercept({ path: '/v1/webhooks', method: 'POST' }).reply(200, { webhook: { id: 'wh_1' } });
    const { t } = transport({ log: (l) => lines.push(l) });
    await t.request({ method: 'POST', path: '/v1/webhooks', body: { note: pad, token } });
    expect(lines.join('\n')).not.toContain(token.slice(0, 10));
  });

  it('logs each request and response with the key and tokens redacted', async () => {
    const lines: string[] = [];
    agent.get(BASE).intercept({ path: '/v1/webhooks', method: 'POST' }).reply(200, { webhook: { id: 'wh_1', token: 'wht_secretsecretsecret1234' } }, { headers: { 'x-request-id': 'req_9' } });
    const { t } = transport({ log: (l) => lines.push(l) });
    await t.request({ method: 'POST', path: '/v1/webhooks', body: { url: 'https://h.test', token: 'wht_mytokenmytokenmytoken', note: `key ${KEY}` } });
    const all = lines.join('\n');
    expect(all).toContain('→ POST https://api.test/v1/webhooks');
    expect(all).toMatch(/← 200 in \d+ ms \(request id req_9\)/);
    expect(all).not.toContain(KEY);
    expect(all).not.toContain('wht_secretsecretsecret1234');
    expect(all).not.toContain('wht_mytokenmytokenmytoken');
    expect(all).toContain('wht_…1234');
    expect(all).toContain('sk_live_…WXYZ');
  });
});
