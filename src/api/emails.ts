import type { EmailRequest, EmailResult } from '../schema/index.js';
import { batchResponseSchema, sendEmailResponseSchema } from '../schema/index.js';
import type { Transport } from '../transport/index.js';
import type { BatchFailure } from '../types.js';
import { isMailroomError, mayHaveBeenSent, withKeys } from '../errors.js';
import { IdempotencyConflictError, UnexpectedResponseError } from './call-errors.js';
import { paths } from './paths.js';
import { callOptions, parseBody, type CallOptions } from './request.js';
import { readBatchAnswer } from './batch-answer.js';
import { otherEmail } from './same-email.js';

export { readBatchAnswer };

export { otherEmail } from './same-email.js';

export { IdempotencyConflictError } from './call-errors.js';

export type { CallOptions } from './request.js';

export interface SendResult {
  email: EmailResult;
  requestId: string | undefined;
}

/**
 * A send's failure with the keys to retry it under. A 2xx the client could not read means the API
 * took the request; the transport has marked the other failures after which it may have.
 */
function sendFailure(err: unknown, keys: { idempotencyKey?: string; idempotencyKeys?: string[] }): unknown {
  if (!isMailroomError(err)) return err;
  if (err instanceof UnexpectedResponseError) mayHaveBeenSent(err, keys);
  else withKeys(err, keys);
  return err;
}

/** POST /v1/emails. Retried on transient failures only when the email carries an idempotency key. */
export async function sendEmail(t: Transport, email: EmailRequest, opts: CallOptions = {}): Promise<SendResult> {
  try {
    const res = await t.request({
      method: 'POST',
      path: paths.emails(),
      body: email,
      idempotent: Boolean(email.idempotencyKey),
      ...callOptions(opts),
    });
    return { email: parseBody(sendEmailResponseSchema, res, 'send').email, requestId: res.requestId };
  } catch (err) {
    throw sendFailure(err, email.idempotencyKey === undefined ? {} : { idempotencyKey: email.idempotencyKey });
  }
}

export type { BatchFailure } from '../types.js';

export interface BatchResult {
  /** In request order, without the failed entries. */
  successful: EmailResult[];
  failed: BatchFailure[];
  requestId: string | undefined;
}

/**
 * POST /v1/emails/batch with 1..50 emails; retried only when every email carries an idempotency key.
 * The library's `emails.sendBatch`: its results are whole (the schema's) or the call rejects, as a
 * send does; the batch engine reads answers with readBatchAnswer alone (src/batch/http.ts).
 */
export async function sendBatch(t: Transport, emails: EmailRequest[], opts: CallOptions = {}): Promise<BatchResult> {
  const keys = emails.map((e) => e.idempotencyKey);
  try {
    const res = await t.request({
      method: 'POST',
      path: paths.emailBatch(),
      body: { emails },
      idempotent: emails.length > 0 && emails.every((e) => Boolean(e.idempotencyKey)),
      ...callOptions(opts),
    });
    parseBody(batchResponseSchema, res, 'batch');
    return { ...readBatchAnswer(res), requestId: res.requestId };
  } catch (err) {
    throw sendFailure(err, keys.every((k) => k !== undefined) ? { idempotencyKeys: keys } : {});
  }
}

/** Throws IdempotencyConflictError when the API's answer is another email than the one sent under its key. */
export function checkSameEmail(sent: EmailRequest, got: EmailResult, hint: string): void {
  const other = otherEmail(sent, got);
  if (other !== undefined) throw new IdempotencyConflictError(sent.idempotencyKey ?? '', got, other, hint);
}
