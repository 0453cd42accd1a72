import type { BatchFailureEntry } from '../api/emails.js';
import { CliError } from '../errors.js';
import type { EmailResult } from '../schema/index.js';
import type { Transport } from '../transport/index.js';
import type { SendBatch } from './sender.js';

/**
 * POST /v1/emails/batch for the engine. Not `api/emails.ts` `sendBatch`: that one validates the whole
 * answer with zod, so one odd result (a newer server omitting `id`) fails all fifty and costs a
 * zod pass per request on the hot path. Here each result is read on its own: what cannot be read
 * is simply not matched, and the matcher resends those entries under their keys.
 */
export function batchOver(transport: Transport): SendBatch {
  return async (emails, pacingSignal) => {
    // No retries here: the batch sender owns them (one budget, --max-retries), and every entry
    // carries an idempotency key (see input/entries.ts), so its retries of the POST are safe.
    const res = await transport.request({ method: 'POST', path: '/v1/emails/batch', body: { emails }, idempotent: true, maxRetries: 0, ...(pacingSignal ? { pacingSignal } : {}) });
    return readBatchAnswer(res.body, res.requestId);
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function readBatchAnswer(body: unknown, requestId?: string): { successful: EmailResult[]; failed: BatchFailureEntry[] } {
  const answer = isObject(body) && isObject(body.emails) ? body.emails : undefined;
  if (!answer || !Array.isArray(answer.successful) || !Array.isArray(answer.failed)) {
    throw new CliError('unexpected', 'unexpected batch response from the API: no emails.successful/failed arrays', { requestId });
  }
  const successful: EmailResult[] = [];
  for (const r of answer.successful) {
    // An unreadable result is left out: the matcher finds its entry unaccounted for and resends it.
    if (isObject(r) && typeof r.to === 'string' && (typeof r.id === 'string' || typeof r.messageId === 'string')) {
      successful.push((typeof r.status === 'string' ? r : { ...r, status: 'UNKNOWN' }) as EmailResult);
    }
  }
  const failed = answer.failed.map((f): BatchFailureEntry => {
    if (!isObject(f)) return { message: String(f) };
    return {
      ...f,
      index: typeof f.index === 'number' ? f.index : undefined,
      statusCode: typeof f.statusCode === 'number' ? f.statusCode : undefined,
      error: typeof f.error === 'string' ? f.error : undefined,
      message: typeof f.message === 'string' ? f.message : JSON.stringify(f),
    };
  });
  return { successful, failed };
}
