import { fsReason } from './files.js';
import { redactText, redactValue } from './secrets.js';

/**
 * What went wrong, in the domain's words (docs/library.md, "Errors"): the library's callers branch
 * on it, and the CLI maps each kind to its exit code in one place (src/exit-codes.ts).
 */
export type ErrorKind =
  /** Bad input found before anything was sent. */
  | 'validation'
  /** No key, or a key the API refused (401). */
  | 'authentication'
  /** A key lacking the permission for the operation (403). */
  | 'permission'
  /** Too many requests (429 after the retries). */
  | 'rate-limit'
  /** The monthly sending limit (403). */
  | 'sending-limit'
  /** The API refused the request (another 4xx: invalid payload, unverified sender, not found). */
  | 'rejected'
  /** An idempotency key already used for another email. */
  | 'idempotency-conflict'
  /** The service failed (5xx after the retries). */
  | 'server'
  /** No connection, or the connection was lost or answered with something that is not HTTP. */
  | 'connection'
  /** No whole answer in time. */
  | 'timeout'
  /** The caller's signal (the CLI's Ctrl-C) stopped the work. */
  | 'aborted'
  /** A 2xx whose body breaks the API's contract. */
  | 'unexpected-response'
  /** A webhook delivery not proven genuine. */
  | 'signature'
  /** A local file could not be written. */
  | 'storage'
  /** A batch ended with some entries failed. */
  | 'partial'
  /** `sandbox wait`: the emails waited for were not caught in time. */
  | 'not-caught'
  | 'unexpected';

export interface MailroomErrorOptions {
  /** Extra lines printed under the message: allowed senders, docs URL, what to run next. */
  hints?: string[];
  requestId?: string;
  cause?: unknown;
}

const BRAND = Symbol.for('mailroom-cli.error');

/**
 * The base of every error mailroom throws, in the library and in the CLI. Everything it holds is
 * masked when it is made (src/secrets.ts): the message, the hints, the request id and the cause,
 * which is a masked copy of what undici or Node threw, so that `console.log(err)`, `util.inspect`
 * and `JSON.stringify` in other people's programs never print a key.
 */
export class MailroomError extends Error {
  readonly kind: ErrorKind;
  readonly hints: string[];
  readonly requestId: string | undefined;
  /**
   * The request may have reached the API, and the email been sent, before this failure (a lost or
   * garbled answer, a timeout, a 5xx): send again only under `idempotencyKey`.
   */
  readonly mayHaveBeenSent: boolean = false;
  /** The idempotency key the failed send went under: sending again with it cannot send the email twice. */
  readonly idempotencyKey: string | undefined;
  /** emails.sendBatch: the key of each email, in order. */
  readonly idempotencyKeys: string[] | undefined;

  constructor(kind: ErrorKind, message: string, options: MailroomErrorOptions = {}) {
    super(redactText(message), options.cause === undefined ? undefined : { cause: maskedCause(options.cause) });
    this.kind = kind;
    this.hints = (options.hints ?? []).map((hint) => redactText(hint));
    this.requestId = options.requestId === undefined ? undefined : redactText(options.requestId);
  }

  /** What JSON.stringify shows: the name, kind and message, then the error's own fields (all masked). */
  toJSON(): Record<string, unknown> {
    const cause = this.cause instanceof Error ? { name: this.cause.name, message: this.cause.message } : this.cause;
    return { name: this.name, kind: this.kind, message: this.message, ...Object.fromEntries(Object.entries(this)), ...(cause === undefined ? {} : { cause }) };
  }
}
named(MailroomError, 'MailroomError');
Object.defineProperty(MailroomError.prototype, BRAND, { value: true });

/**
 * Sets a class's `name` on its prototype (not an own, enumerable field of every instance), so that
 * messages, stacks and `err.name` say which error it is whatever a bundler does to class names.
 */
export function named(ctor: abstract new (...args: never[]) => Error, name: string): void {
  Object.defineProperty(ctor.prototype, 'name', { value: name, writable: true, configurable: true, enumerable: false });
}

/** Any mailroom error, also one made by another copy of this module (the CLI's bundle, the library's). */
export function isMailroomError(err: unknown): err is MailroomError {
  return err instanceof MailroomError || (err instanceof Error && (err as unknown as Record<symbol, unknown>)[BRAND] === true);
}

/** Marks a failure that happened after the request may have reached the API, with the keys to retry under. */
export function mayHaveBeenSent(err: MailroomError, keys: { idempotencyKey?: string; idempotencyKeys?: string[] } = {}): void {
  const writable = err as { -readonly [K in 'mayHaveBeenSent' | 'idempotencyKey' | 'idempotencyKeys']: MailroomError[K] };
  writable.mayHaveBeenSent = true;
  withKeys(err, keys);
}

/** Records the idempotency keys a failed send went under (whether or not it may have been sent). */
export function withKeys(err: MailroomError, keys: { idempotencyKey?: string; idempotencyKeys?: string[] }): void {
  const writable = err as { -readonly [K in 'idempotencyKey' | 'idempotencyKeys']: MailroomError[K] };
  if (keys.idempotencyKey !== undefined) writable.idempotencyKey = keys.idempotencyKey;
  if (keys.idempotencyKeys !== undefined) writable.idempotencyKeys = [...keys.idempotencyKeys];
}

/**
 * A copy of what another library threw, with every secret masked: the message, the stack, each own
 * field (undici's HTTPParserError keeps the bytes it could not parse in `data`, which may echo the
 * request's authorization header) and its causes. Mailroom's own errors are masked already.
 */
export function maskedCause(cause: unknown, depth = 0): unknown {
  if (isMailroomError(cause)) return cause;
  if (!(cause instanceof Error)) return redactValue(cause);
  const copy = new Error(redactText(cause.message));
  Object.defineProperty(copy, 'name', { value: cause.name, writable: true, configurable: true, enumerable: false });
  copy.stack = redactText(cause.stack ?? `${cause.name}: ${cause.message}`);
  for (const [key, value] of Object.entries(cause)) {
    (copy as unknown as Record<string, unknown>)[key] =
      Buffer.isBuffer(value) || value instanceof Uint8Array ? redactText(Buffer.from(value).toString('utf8')) : redactValue(value);
  }
  if (cause.cause !== undefined && depth < 4) {
    Object.defineProperty(copy, 'cause', { value: maskedCause(cause.cause, depth + 1), writable: true, configurable: true, enumerable: false });
  }
  return copy;
}

/** Bad input, found before anything was sent: an invalid email, option or file. */
export class ValidationError extends MailroomError {
  constructor(message: string, hints?: string[] | MailroomErrorOptions) {
    super('validation', message, Array.isArray(hints) ? { hints } : hints);
  }
}
named(ValidationError, 'ValidationError');
// Any error of kind `validation` is one (emails.batch's BatchError for broken input too), as before
// errors had classes of their own. Defined here rather than in the class body: TypeScript's isolated
// declaration emit writes a computed static method twice, and the declarations would not compile.
Object.defineProperty(ValidationError, Symbol.hasInstance, { value: (value: unknown): boolean => isMailroomError(value) && value.kind === 'validation' });

/** A local file could not be written (a full disk, a quota, an I/O error). */
export class StorageError extends MailroomError {
  readonly path: string;
  constructor(path: string, err: unknown) {
    super('storage', `cannot write ${path}: ${fsReason(err, 'write')}`, { cause: err, hints: ['free some space (or give the file another place), then resume'] });
    this.path = path;
  }
}
named(StorageError, 'StorageError');

/** The first Ctrl-C: the command stops where it is (`what` says what was left undone). */
export const interruptedError = (what?: string, hints?: string[]): MailroomError =>
  new MailroomError('aborted', what === undefined ? 'interrupted' : `interrupted: ${what}`, { hints });

export const usageError = (message: string, hints?: string[]): ValidationError => new ValidationError(message, hints);

export const storageError = (path: string, err: unknown): StorageError => new StorageError(path, err);

/**
 * Ends the command with `code` after it has said all it has to say itself (e.g. 130 after an
 * interrupted batch's summary). `detail`: what went wrong, for the JSON document only (inside the
 * result the command printed; src/output/document.ts), its stderr lines being printed already.
 */
export class QuietExit extends Error {
  constructor(
    readonly code: number,
    readonly detail?: { message: string; hints?: string[] },
  ) {
    super(`exit ${code}`);
    this.name = 'QuietExit';
  }
}
