import { readBatchAnswer } from '../api/batch-answer.js';
import type { Transport } from '../transport/index.js';
import type { SendBatch } from './sender.js';
import { paths } from '../api/paths.js';

/**
 * POST /v1/emails/batch for the engine. Not `api/emails.ts` `sendBatch`: that one (the library's)
 * also checks the whole answer against the schema, so one odd result (a newer server omitting
 * `id`) would fail all fifty. readBatchAnswer reads each result on its own: what cannot be read is
 * simply not matched, and the matcher resends those entries under their keys.
 */
export function batchOver(transport: Transport, timeoutMs?: number): SendBatch {
  return async (emails, pacingSignal) => {
    // No retries here: the batch sender owns them (one budget, --max-retries), and every entry
    // carries an idempotency key (see input/entries.ts), so its retries of the POST are safe.
    const res = await transport.request({ method: 'POST', path: paths.emailBatch(), body: { emails }, idempotent: true, maxRetries: 0, ...(timeoutMs !== undefined ? { timeoutMs } : {}), ...(pacingSignal ? { pacingSignal } : {}) });
    return readBatchAnswer(res);
  };
}
