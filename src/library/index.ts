/**
 * mailroom-cli as a library (docs/library.md): the typed client of the SMASHSEND API that the
 * `mailroom` command itself uses, webhook verification, and the error classes. Importing this
 * module loads no HTTP stack: that comes with the first request.
 */
export { Mailroom, type ApiKeys, type Emails, type MailroomOptions, type Webhooks } from './mailroom.js';
export { createWebhookHandler, verifySignature } from './receive.js';
export {
  AbortedError,
  ApiError,
  AuthenticationError,
  BatchError,
  ConnectionError,
  IdempotencyConflictError,
  MailroomError,
  PermissionError,
  RateLimitError,
  RotateIncompleteError,
  ServerError,
  StorageError,
  TimeoutError,
  UnexpectedResponseError,
  ValidationError,
  WebhookSignatureError,
  type ApiErrorBody,
  type ErrorKind,
  type SignatureFailure,
} from './public-errors.js';
export type * from '../types.js';
