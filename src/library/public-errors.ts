import { MailroomError, named } from '../errors.js';
import { redactValue } from '../secrets.js';
import type { BatchSummary } from '../types.js';

/**
 * The error classes the library throws (docs/library.md, "Errors"): every one is a MailroomError
 * with its own `name`, a `kind` in the domain's words, `hints` and `requestId`, and nothing in it
 * (message, fields, cause) holds a secret. Exit codes are the CLI's business (src/exit-codes.ts).
 */
export { MailroomError, ValidationError, StorageError, type ErrorKind } from '../errors.js';
export {
  ApiError,
  AbortedError,
  AuthenticationError,
  ConnectionError,
  PermissionError,
  RateLimitError,
  ServerError,
  TimeoutError,
  type ApiErrorBody,
} from '../transport/http-errors.js';
export { IdempotencyConflictError, RotateIncompleteError, UnexpectedResponseError } from '../api/call-errors.js';

export type SignatureFailure = 'missing' | 'malformed' | 'mismatch' | 'too-old' | 'not-an-event';

/** A webhook delivery that is not proven to come from the service: answer it 401 (or 400 for `not-an-event`). */
export class WebhookSignatureError extends MailroomError {
  readonly reason: SignatureFailure;
  constructor(reason: SignatureFailure, message: string) {
    super('signature', message);
    this.reason = reason;
  }

  /** The status to answer the delivery with. */
  get statusCode(): number {
    return this.reason === 'not-an-event' ? 400 : 401;
  }
}
named(WebhookSignatureError, 'WebhookSignatureError');

/** emails.batch stopped early (bad credentials, the API unreachable, a full disk, broken input): `cause` says why, `summary` what was done. */
export class BatchError extends MailroomError {
  readonly summary: BatchSummary;
  constructor(cause: MailroomError, summary: BatchSummary) {
    super(cause.kind, cause.message, { hints: cause.hints, requestId: cause.requestId, cause });
    this.summary = redactValue(summary);
  }
}
named(BatchError, 'BatchError');
