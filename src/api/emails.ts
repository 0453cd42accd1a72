import type { EmailRequest, EmailResult } from '../schema/index.js';
import { batchResponseSchema, sendEmailResponseSchema } from '../schema/index.js';
import type { Transport } from '../transport/index.js';
import { IdempotencyConflictError } from './errors.js';
import { callOptions, parseBody, type CallOptions } from './request.js';

export { IdempotencyConflictError } from './errors.js';

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

/** Throws IdempotencyConflictError when the API's answer is another email than the one sent under its key. */
export function checkSameEmail(sent: EmailRequest, got: EmailResult, hint: string): void {
  const other = describeOtherEmail(sent, got);
  if (other !== undefined) throw new IdempotencyConflictError(sent.idempotencyKey ?? '', got, other, hint);
}

/**
 * An idempotency key the API saw before answers with the first email it was used for, whatever
 * this request held: what tells them apart is the answer's recipient, subject or template.
 */
function describeOtherEmail(sent: EmailRequest, got: EmailResult): string | undefined {
  const differs = (a: string | undefined, b: string | null | undefined, norm = (v: string) => v) => a !== undefined && typeof b === 'string' && norm(a) !== norm(b);
  const address = (v: string) => v.trim().toLowerCase();
  const subject = 'subject' in sent ? sent.subject : undefined;
  const template = 'template' in sent ? sent.template : undefined;
  const kind = template === undefined ? 'raw' : 'templated';
  const other =
    differs(sent.to, got.to, address) ||
    differs(subject, got.subject) ||
    differs(template, got.template) ||
    (got.type !== undefined && (got.type === 'raw' || got.type === 'templated') && got.type !== kind);
  if (!other) return undefined;
  const what = typeof got.template === 'string' ? `template ${got.template}` : typeof got.subject === 'string' ? `subject ${JSON.stringify(got.subject)}` : undefined;
  return [got.id ?? got.messageId, `to ${got.to}`, what].filter(Boolean).join(', ');
}
