import { CliError, type ErrorKind } from '../errors.js';
import type { ApiKey, EmailResult } from '../types.js';
import type { ApiResponse } from '../transport/index.js';

/*
 * The API layer's own errors, in a module that loads nothing else: the library's entry exports
 * them without loading zod or the transport.
 */

/** A 2xx whose body breaks the contract: the request itself went through. */
export class UnexpectedResponseError extends CliError {
  readonly status: number;
  constructor(message: string, res: ApiResponse) {
    super('unexpected', message, { requestId: res.requestId });
    this.status = res.status;
  }
}

/** An idempotency key already used for another email: the API answered with that one and sent nothing new. */
export class IdempotencyConflictError extends CliError {
  readonly idempotencyKey: string;
  /** The email the key was first used for, as the API returned it. */
  readonly existing: EmailResult;
  constructor(key: string, existing: EmailResult, what: string, hint: string) {
    super('rejected', `idempotency key ${key} was already used for another email (${what}): the API returned that one and sent nothing new`, { hints: [hint] });
    this.idempotencyKey = key;
    this.existing = existing;
  }
}

/** Thrown when the new key works but the old one could not be deleted: the caller must still show the new secret. */
export class RotateIncompleteError extends CliError {
  readonly newKey: ApiKey;
  constructor(kind: ErrorKind, message: string, hints: string[], newKey: ApiKey, requestId: string | undefined) {
    super(kind, message, { hints, requestId });
    this.newKey = newKey;
  }
}

