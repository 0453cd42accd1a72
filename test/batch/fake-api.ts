import type { BatchFailure } from '../../src/api/emails.js';
import type { SendBatch } from '../../src/batch/sender.js';
import type { EmailRequest, EmailResult } from '../../src/schema/index.js';
import { ApiError, ConnectionError } from '../../src/transport/index.js';

export interface FakeApiOptions {
  /** Decides, per request, what goes wrong. */
  fault?: (call: number, emails: EmailRequest[]) => 'ok' | '503' | 'drop' | 'refused' | 'lost' | '429' | '400' | '401' | 'omit-one' | 'no-index' | undefined;
  /** Entries the API refuses (its own per-entry failure). */
  reject?: (email: EmailRequest) => string | undefined;
}

/** An in-memory batch endpoint with idempotency, like the sandbox: the first result for a key wins. */
export function fakeApi(opts: FakeApiOptions = {}) {
  const byKey = new Map<string, EmailResult>();
  const delivered: EmailRequest[] = [];
  let calls = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const send: SendBatch = async (emails) => {
    calls += 1;
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      await new Promise((r) => setTimeout(r, 1));
      const fault = opts.fault?.(calls, emails) ?? 'ok';
      if (fault === '503') throw new ApiError({ status: 503, body: { statusCode: 503, error: 'Service Unavailable', message: 'busy' } });
      if (fault === '429') throw new ApiError({ status: 429, body: { statusCode: 429, error: 'Too Many Requests', message: 'slow down' }, retryAfterMs: 5 });
      if (fault === '401') throw new ApiError({ status: 401, body: { statusCode: 401, error: 'Unauthorized', message: 'bad key' } });
      if (fault === '400') throw new ApiError({ status: 400, body: { statusCode: 400, error: 'Bad Request', message: 'Invalid payload' } });
      if (fault === 'refused') throw new ConnectionError('http://fake', 'ECONNREFUSED', new Error('connect ECONNREFUSED'));
      if (fault === 'drop') throw new ConnectionError('http://fake', 'ECONNRESET', new Error('socket hang up'));
      const successful: EmailResult[] = [];
      const failed: BatchFailure[] = [];
      emails.forEach((email, index) => {
        const why = opts.reject?.(email);
        if (why) {
          failed.push(fault === 'no-index' ? { to: email.to, statusCode: 400, error: 'Bad Request', message: why } : { index, statusCode: 400, error: 'Bad Request', message: why });
          return;
        }
        let result = byKey.get(email.idempotencyKey!);
        if (!result) {
          result = { id: `trs_${delivered.length}`, messageId: `m${delivered.length}`, status: 'SENT', to: email.to, type: 'raw' };
          byKey.set(email.idempotencyKey!, result);
          delivered.push(email);
        }
        successful.push(result);
      });
      if (fault === 'lost') throw new ConnectionError('http://fake', 'ECONNRESET', new Error('socket hang up'));
      if (fault === 'omit-one' && successful.length > 1) successful.splice(1, 1);
      return { successful, failed };
    } finally {
      inFlight -= 1;
    }
  };
  return {
    send,
    delivered,
    get calls() {
      return calls;
    },
    get maxInFlight() {
      return maxInFlight;
    },
  };
}

export function entries(count: number, from = 0) {
  return Array.from({ length: count }, (_, k) => {
    const index = from + k;
    return { ok: true as const, index, line: index + 1, email: { from: 'ops@example.com', to: `u${index}@example.com`, subject: 'Hi', html: '<p>Hi</p>', idempotencyKey: `mr-test-${index}` } };
  });
}
