import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendBatch, sendEmail } from '../../src/api/emails.js';
import { isMailroomError } from '../../src/errors.js';
import { exitCodeOf } from '../../src/exit-codes.js';
import { UnexpectedResponseError } from '../../src/api/request.js';
import { expectedHeaders, mockApi } from './mock.js';

let api: ReturnType<typeof mockApi>;
beforeEach(() => {
  api = mockApi();
});
afterEach(async () => {
  api.agent.assertNoPendingInterceptors();
  await api.close();
});

const raw = { from: 'ops@example.com', to: 'a@example.com', subject: 'Hi', html: '<p>Hi</p>', idempotencyKey: 'k1' };
const result = { id: 'trs_1', messageId: 'm_1', status: 'SENT', to: 'a@example.com', type: 'raw', from: 'ops@example.com', subject: 'Hi' };

describe('sendEmail', () => {
  it('POSTs the email to /v1/emails with auth, JSON and user agent, and returns the result', async () => {
    api.answer('POST', '/v1/emails', 200, { email: result });
    const out = await sendEmail(api.transport, raw);
    expect(api.seen).toHaveLength(1);
    expect(api.seen[0]).toMatchObject({ method: 'POST', path: '/v1/emails', body: raw });
    expect(api.seen[0]!.headers).toMatchObject(expectedHeaders(true));
    expect(out).toEqual({ email: result, requestId: 'req_1' });
  });

  it('tolerates a result without from/subject/type and with a newer status', async () => {
    api.answer('POST', '/v1/emails', 200, { email: { id: 'trs_2', messageId: 'm', status: 'SCHEDULED', to: 'a@example.com', warning: 'w' } });
    expect((await sendEmail(api.transport, raw)).email.status).toBe('SCHEDULED');
  });

  it('turns a body that breaks the contract into exit 1 with the request id', async () => {
    api.answer('POST', '/v1/emails', 200, { email: { status: 'SENT' } });
    const err = await sendEmail(api.transport, raw).catch((e: unknown) => e);
    expect(isMailroomError(err) && err.kind).toBe('unexpected-response');
    expect((err as Error).message).toMatch(/^unexpected send response from the API: /);
    expect((err as { requestId?: string }).requestId).toBe('req_1');
  });

  it('reads null from/subject/type/warning as unset rather than failing a send that went through', async () => {
    const email = { id: 'trs_3', messageId: 'm', status: 'SENT', to: 'a@example.com', from: null, subject: null, type: null, template: null, groupBy: null, warning: null };
    api.answer('POST', '/v1/emails', 200, { email });
    expect((await sendEmail(api.transport, raw)).email).toEqual(email);
  });

  it('marks a contract-breaking 2xx as such, with its status, so a send can say the email went through', async () => {
    api.answer('POST', '/v1/emails', 202, { email: { status: 'SENT', to: 'a@example.com' } });
    const err = await sendEmail(api.transport, raw).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnexpectedResponseError);
    expect((err as UnexpectedResponseError).status).toBe(202);
  });

  it('maps a 400 to a rejected error carrying the API message', async () => {
    api.answer('POST', '/v1/emails', 400, { statusCode: 400, error: 'Bad Request', message: 'Sender not verified', allowedEmails: ['ops@acme.test'], allowedDomains: [], docsUrl: 'https://d' });
    const err = await sendEmail(api.transport, raw).catch((e: unknown) => e);
    expect(isMailroomError(err) && exitCodeOf(err)).toBe(4);
  });
});

describe('sendBatch', () => {
  it('POSTs { emails } to /v1/emails/batch and returns successful, failed and the request id', async () => {
    const templated = { template: 'welcome', to: 'b@example.com', variables: {}, idempotencyKey: 'k2' };
    api.answer('POST', '/v1/emails/batch', 200, {
      emails: { successful: [result], failed: [{ index: 1, statusCode: 400, error: 'Bad Request', message: 'Unknown template', docsUrl: 'x' }] },
    });
    const out = await sendBatch(api.transport, [raw, templated]);
    expect(api.seen[0]).toMatchObject({ method: 'POST', path: '/v1/emails/batch', body: { emails: [raw, templated] } });
    expect(api.seen[0]!.headers).toMatchObject(expectedHeaders(true));
    expect(out).toEqual({
      successful: [result],
      failed: [{ index: 1, statusCode: 400, error: 'Bad Request', message: 'Unknown template', docsUrl: 'x' }],
      requestId: 'req_1',
    });
  });

  it('keeps failed entries of an unknown shape instead of dropping them', async () => {
    api.answer('POST', '/v1/emails/batch', 200, { emails: { successful: [], failed: ['boom', { reason: 'x' }] } });
    const out = await sendBatch(api.transport, [raw, raw]);
    expect(out.failed).toEqual([
      { message: 'boom' },
      { reason: 'x', index: undefined, statusCode: undefined, error: undefined, message: '{"reason":"x"}' },
    ]);
  });

  // The library's emails.sendBatch returns whole results or rejects: the batch engine's reader
  // leaves odd results out (and resends their entries), this call must not drop them silently.
  it('rejects an answer with a result that has neither id nor messageId, with its status and request id', async () => {
    api.answer('POST', '/v1/emails/batch', 202, { emails: { successful: [result, { to: 'b@example.com', status: 'SENT' }], failed: [] } });
    const err = await sendBatch(api.transport, [raw, raw]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnexpectedResponseError);
    expect(err).toMatchObject({ kind: 'unexpected-response', status: 202, requestId: 'req_1' });
    expect((err as Error).message).toBe('unexpected batch response from the API: emails.successful.1 has neither id nor messageId');
  });

  it('rejects an answer whose result has no status or a field of the wrong type', async () => {
    api.answer('POST', '/v1/emails/batch', 200, { emails: { successful: [{ id: 'trs_1', to: 'a@example.com' }], failed: [] } });
    await expect(sendBatch(api.transport, [raw])).rejects.toThrow(/^unexpected batch response from the API: emails\.successful\.0\.status is not valid here$/);
    api.answer('POST', '/v1/emails/batch', 200, { emails: { successful: [{ ...result, subject: 5 }], failed: [] } });
    await expect(sendBatch(api.transport, [raw])).rejects.toThrow(/^unexpected batch response from the API: emails\.successful\.0\.subject /);
  });

  it('rejects an answer without the emails.successful and emails.failed arrays', async () => {
    for (const body of [{ email: {} }, { emails: { successful: [] } }, { emails: { successful: {}, failed: [] } }, 'OK']) {
      api.answer('POST', '/v1/emails/batch', 200, body);
      const err = await sendBatch(api.transport, [raw]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnexpectedResponseError);
      expect((err as Error).message).toMatch(/^unexpected batch response from the API: /);
    }
  });

  it('returns results with a newer status, null fields and fields of a newer server as they came', async () => {
    const newer = { id: 'trs_2', messageId: null, status: 'QUEUED_LATER', to: 'b@example.com', subject: null, type: null, tracking: { opens: true } };
    api.answer('POST', '/v1/emails/batch', 200, { emails: { successful: [result, newer], failed: [], page: 1 } });
    expect((await sendBatch(api.transport, [raw, raw])).successful).toEqual([result, newer]);
  });

  it('reads failed entries whose fields have other types, keeping every field', async () => {
    api.answer('POST', '/v1/emails/batch', 200, { emails: { successful: [], failed: [{ index: '1', statusCode: 400, error: 7, message: 'bad', extra: true }, 12, null] } });
    expect((await sendBatch(api.transport, [raw, raw, raw])).failed).toEqual([
      { index: undefined, statusCode: 400, error: undefined, message: 'bad', extra: true },
      { message: '12' },
      { message: 'null' },
    ]);
  });
});

describe('retries of sends (POST retried only with idempotency keys)', () => {
  it('retries a keyed send after a 503 with the same body and key', async () => {
    const { createHttpTransport } = await import('../../src/transport/http.js');
    const t = createHttpTransport({ baseUrl: 'https://api.example.test', apiKey: 'sk_live_x', dispatcher: api.agent, userAgent: 'ua', timeoutMs: 5000, maxRetries: 2, ownsDispatcher: false, wait: async () => {} });
    api.answer('POST', '/v1/emails', 503, { statusCode: 503, error: 'Service Unavailable', message: 'try later' });
    api.answer('POST', '/v1/emails', 200, { email: result });
    const retries: number[] = [];
    await sendEmail(t, raw, { onRetry: (i) => retries.push(i.status ?? 0) });
    expect(api.seen.map((s) => (s.body as { idempotencyKey: string }).idempotencyKey)).toEqual(['k1', 'k1']);
    expect(retries).toEqual([503]);
  });

  it('does not retry a batch when one email lacks a key', async () => {
    const { createHttpTransport } = await import('../../src/transport/http.js');
    const t = createHttpTransport({ baseUrl: 'https://api.example.test', apiKey: 'sk_live_x', dispatcher: api.agent, userAgent: 'ua', timeoutMs: 5000, maxRetries: 2, ownsDispatcher: false, wait: async () => {} });
    api.answer('POST', '/v1/emails/batch', 503, { statusCode: 503, error: 'Service Unavailable', message: 'try later' });
    const { idempotencyKey: _drop, ...unkeyed } = raw;
    const err = await sendBatch(t, [raw, unkeyed]).catch((e: unknown) => e);
    expect(isMailroomError(err)).toBe(true);
    expect(api.seen).toHaveLength(1);
  });
});
