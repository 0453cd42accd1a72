import { MailroomError, named, type ErrorKind } from '../errors.js';
import { redactValue } from '../secrets.js';
import type { ApiKey, EmailResult } from '../types.js';
import type { ApiResponse } from '../transport/index.js';

/*
 * The API layer's own errors, in a module that loads nothing else: the library's entry exports
 * them without loading zod or the transport.
 */

/** A 2xx whose body breaks the contract: the request itself went through. */
export class UnexpectedResponseError extends MailroomError {
  readonly status: number;
  constructor(message: string, res: ApiResponse) {
    super('unexpected-response', message, { requestId: res.requestId });
    this.status = res.status;
  }
}
named(UnexpectedResponseError, 'UnexpectedResponseError');

/** An idempotency key already used for another email: the API answered with that one and sent nothing new. */
export class IdempotencyConflictError extends MailroomError {
  /** The email the key was first used for, as the API returned it (secrets masked). */
  readonly existing: EmailResult;
  constructor(key: string, existing: EmailResult, what: string, hint: string) {
    super('idempotency-conflict', `idempotency key ${key} was already used for another email (${what}): the API returned that one and sent nothing new`, { hints: [hint] });
    (this as { idempotencyKey: string }).idempotencyKey = key;
    this.existing = redactValue(existing);
  }
}
named(IdempotencyConflictError, 'IdempotencyConflictError');

/**
 * Thrown when the new key works but the old one could not be deleted: the caller must still show
 * the new secret. `newKey` (with its secret) is not an enumerable field, so logging the error does
 * not print the secret; read it on purpose.
 */
export class RotateIncompleteError extends MailroomError {
  declare readonly newKey: ApiKey;
  constructor(kind: ErrorKind, message: string, hints: string[], newKey: ApiKey, requestId: string | undefined) {
    super(kind, message, { hints, requestId });
    Object.defineProperty(this, 'newKey', { value: newKey, enumerable: false });
  }
}
named(RotateIncompleteError, 'RotateIncompleteError');
