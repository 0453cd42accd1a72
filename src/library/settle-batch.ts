import { IdempotencyConflictError } from '../api/call-errors.js';
import { matchBatch } from '../batch/match.js';
import type { EmailRequest } from '../schema/index.js';
import type { BatchFailure, EmailResult } from '../types.js';

const CONFLICT_HINT = 'send this email with another idempotencyKey (or none: each email gets its own)';

/**
 * A sendBatch answer placed on the request's emails (the batch engine's matching): each email is
 * successful, or failed with its `index`: refused by the API, answered with another email (its key
 * was used before: an `IdempotencyConflict`), or left out of the answer (`NotInAnswer`: sending it
 * again under the same key is safe). `successful` stays in request order.
 */
export function settleBatch(requests: readonly EmailRequest[], answer: { successful: readonly EmailResult[]; failed: readonly BatchFailure[] }): { successful: EmailResult[]; failed: BatchFailure[] } {
  const matched = matchBatch(requests, answer as Parameters<typeof matchBatch>[1]);
  const failed: BatchFailure[] = matched.failed.map(({ pos, failure }) => ({ ...failure, index: pos }));
  for (const { pos, result, other } of matched.conflicts) {
    const key = requests[pos]!.idempotencyKey ?? '';
    const { message } = new IdempotencyConflictError(key, result, other, CONFLICT_HINT);
    failed.push({ index: pos, error: 'IdempotencyConflict', message, idempotencyKey: key });
  }
  for (const pos of matched.unknown) {
    failed.push({
      index: pos,
      error: 'NotInAnswer',
      message: `the API's answer did not account for this email: it may or may not have been sent; sending it again under the same idempotencyKey (${requests[pos]!.idempotencyKey}) is safe`,
      idempotencyKey: requests[pos]!.idempotencyKey,
    });
  }
  failed.sort((a, b) => a.index! - b.index!);
  return { successful: matched.successful.map((s) => s.result as EmailResult), failed };
}
