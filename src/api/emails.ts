import type { EmailRequest, EmailResult } from '../schema/index.js';
import { batchResponseSchema, sendEmailResponseSchema } from '../schema/index.js';
import type { Transport } from '../transport/index.js';
import { callOptions, parseBody, type CallOptions } from './request.js';

export type { CallOptions } from './request.js';

export interface SendResult {
  email: EmailResult;
  requestId: string | undefined;
}

/** POST /v1/emails. Retried on transient failures only when the email carries an idempotency key. */
export async function sendEmail(t: Transport, email: EmailRequest, opts: CallOptions = {}): Promise<SendResult> {
  const res = await t.request({
    method: 'POST',
    path: '/v1/emails',
    body: email,
    idempotent: Boolean(email.idempotencyKey),
    ...callOptions(opts),
  });
  return { email: parseBody(sendEmailResponseSchema, res, 'send').email, requestId: res.requestId };
}

/**
 * One entry of a batch's `failed` array. The spec does not show its shape; the sandbox (and, we
 * expect, the service) sends `{ index, statusCode, error, message }`, so each is optional here.
 */
export interface BatchFailureEntry {
  index?: number;
  statusCode?: number;
  error?: string;
  message: string;
  [extra: string]: unknown;
}

export interface BatchResult {
  /** In request order, without the failed entries. */
  successful: EmailResult[];
  failed: BatchFailureEntry[];
  requestId: string | undefined;
}

/** POST /v1/emails/batch with 1..50 emails; retried only when every email carries an idempotency key. */
export async function sendBatch(t: Transport, emails: EmailRequest[], opts: CallOptions = {}): Promise<BatchResult> {
  const res = await t.request({
    method: 'POST',
    path: '/v1/emails/batch',
    body: { emails },
    idempotent: emails.length > 0 && emails.every((e) => Boolean(e.idempotencyKey)),
    ...callOptions(opts),
  });
  const body = parseBody(batchResponseSchema, res, 'batch');
  return { successful: body.emails.successful, failed: body.emails.failed.map(toFailure), requestId: res.requestId };
}

function toFailure(entry: unknown): BatchFailureEntry {
  if (typeof entry !== 'object' || entry === null) return { message: String(entry) };
  const e = entry as Record<string, unknown>;
  return {
    ...e,
    index: typeof e.index === 'number' ? e.index : undefined,
    statusCode: typeof e.statusCode === 'number' ? e.statusCode : undefined,
    error: typeof e.error === 'string' ? e.error : undefined,
    message: typeof e.message === 'string' ? e.message : JSON.stringify(entry),
  };
}
