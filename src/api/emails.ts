import type { EmailRequest, EmailResult } from '../schema/index.js';
import { batchResponseSchema, sendEmailResponseSchema } from '../schema/index.js';
import type { ApiResponse, Transport } from '../transport/index.js';
import type { BatchFailure } from '../types.js';
import { isMailroomError, mayHaveBeenSent, withKeys } from '../errors.js';
import { IdempotencyConflictError, UnexpectedResponseError } from './errors.js';
import { paths } from './paths.js';
import { callOptions, parseBody, type CallOptions } from './request.js';
import { otherEmail } from './same-email.js';

export { otherEmail } from './same-email.js';

export { IdempotencyConflictError } from './errors.js';

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

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The one reader of a batch answer, `{ emails: { successful, failed } }`. Each result is read on its
 * own: one the engine cannot match (no `to`, or neither `id` nor `messageId`) is left out, so its
 * entry is resent under its key rather than all fifty failing; a missing status reads as UNKNOWN.
 * The spec does not show a `failed` entry; the sandbox sends `{ index, statusCode, error, message }`:
 * each is kept when it has its type, every other field as it came, and anything else becomes a message.
 */
export function readBatchAnswer(res: ApiResponse): Pick<BatchResult, 'successful' | 'failed'> {
  const answer = isObject(res.body) && isObject(res.body.emails) ? res.body.emails : undefined;
  if (!answer || !Array.isArray(answer.successful) || !Array.isArray(answer.failed)) {
    throw new UnexpectedResponseError('unexpected batch response from the API: no emails.successful/failed arrays', res);
  }
  const successful: EmailResult[] = [];
  for (const r of answer.successful) {
    if (isObject(r) && typeof r.to === 'string' && (typeof r.id === 'string' || typeof r.messageId === 'string')) {
      successful.push((typeof r.status === 'string' ? r : { ...r, status: 'UNKNOWN' }) as EmailResult);
    }
  }
  const failed = answer.failed.map((f): BatchFailure => {
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

/** Throws IdempotencyConflictError when the API's answer is another email than the one sent under its key. */
export function checkSameEmail(sent: EmailRequest, got: EmailResult, hint: string): void {
  const other = otherEmail(sent, got);
  if (other !== undefined) throw new IdempotencyConflictError(sent.idempotencyKey ?? '', got, other, hint);
}
