import { CliError, isCliError } from '../errors.js';
import type { BatchSummary } from '../types.js';

/**
 * The error classes the library throws. They are the CLI's own (one implementation): every one is a
 * MailroomError carrying `kind` (the CLI's exit-code name), `hints` and `requestId`, and messages
 * never hold a secret (errors.ts masks them). ValidationError matches by kind,
 * so the usage errors of the shared parsers and the batch engine are caught by it too.
 */
export { CliError as MailroomError } from '../errors.js';
export { ApiError, AbortedError, ConnectionError, TimeoutError, type ApiErrorBody } from '../transport/errors.js';
export { IdempotencyConflictError, RotateIncompleteError, UnexpectedResponseError } from '../api/errors.js';

/** Bad input, found before anything was sent: an invalid email, option or file. */
export class ValidationError extends CliError {
  constructor(message: string, hints?: string[]) {
    super('usage', message, { hints });
  }
}
// Defined here rather than in the class body: TypeScript's isolated declaration emit writes a
// computed static method twice, and the declarations would not compile.
Object.defineProperty(ValidationError, Symbol.hasInstance, { value: (value: unknown): boolean => isCliError(value) && value.kind === 'usage' });

export type SignatureFailure = 'missing' | 'malformed' | 'mismatch' | 'too-old' | 'not-an-event';

/** A webhook delivery that is not proven to come from the service: answer it 401 (or 400 for `not-an-event`). */
export class WebhookSignatureError extends CliError {
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

/** emails.batch stopped early (bad credentials, the API unreachable, a full disk, broken input): `cause` says why, `summary` what was done. */
export class BatchError extends CliError {
  readonly summary: BatchSummary;
  constructor(cause: CliError, summary: BatchSummary) {
    super(cause.kind, cause.message, { hints: cause.hints, requestId: cause.requestId, cause });
    this.summary = summary;
  }
}
