import { fsReason } from './files.js';
import { redactText } from './secrets.js';

/** Exit codes are a contract with users' scripts (docs/reference/exit-codes.md); never renumber them. */
export const EXIT = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  auth: 3,
  rejected: 4,
  limit: 5,
  network: 6,
  partial: 7,
  signature: 8,
  storage: 9,
  interrupted: 130,
} as const;

export type ErrorKind = Exclude<keyof typeof EXIT, 'ok'>;

/** What each exit code means: `mailroom help exit-codes`, the root help and docs/reference/exit-codes.md come from here. */
export const EXIT_MEANINGS: Record<keyof typeof EXIT, string> = {
  ok: 'success',
  unexpected: 'unexpected error',
  usage: 'usage or local validation error (bad flag, bad JSON, schema mismatch): nothing was sent; also a confirmation prompt answered no (nothing done), as gh does',
  auth: 'authentication or permission (401, 403 lacking permissions), missing credentials',
  rejected: 'rejected by the API (400: invalid payload, unverified sender; 404); `send` with an idempotency key already used for another email',
  limit: 'limits: 429 after retries, monthly sending limit (403)',
  network: 'network or timeout after retries',
  partial: 'batch finished with some entries failed',
  signature: 'webhook signature mismatch (`verify`), or a delivery older than `verify --max-age`',
  storage: 'a local file could not be written (disk full, quota, I/O error): batch stopped cleanly; free space and resume',
  interrupted: 'interrupted by Ctrl-C: the command stopped (a batch first settles its requests in flight; sandbox and webhooks listen stop cleanly, and exit 0 on SIGTERM)',
};

export interface CliErrorOptions {
  /** Extra lines printed under the message: allowed senders, docs URL, what to run next. */
  hints?: string[];
  requestId?: string;
  cause?: unknown;
}

/** The one error type commands throw; run.ts prints `message` (+ hints) and exits with `exitCode`. */
export class CliError extends Error {
  readonly kind: ErrorKind;
  readonly hints: string[];
  readonly requestId: string | undefined;

  constructor(kind: ErrorKind, message: string, options: CliErrorOptions = {}) {
    // Masked here, not only when printed: the library hands errors to code that logs them as it likes.
    super(redactText(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CliError';
    this.kind = kind;
    this.hints = (options.hints ?? []).map((hint) => redactText(hint));
    this.requestId = options.requestId;
  }

  get exitCode(): number {
    return EXIT[this.kind];
  }
}

/** The first Ctrl-C: the command stops where it is and exits 130 (`what` says what was left undone). */
export const interruptedError = (what?: string, hints?: string[]): CliError =>
  new CliError('interrupted', what === undefined ? 'interrupted' : `interrupted: ${what}`, { hints });

export const usageError = (message: string, hints?: string[]): CliError => new CliError('usage', message, { hints });

/** A local file could not be written (a full disk, a quota, an I/O error): exit 9. */
export const storageError = (path: string, err: unknown): CliError =>
  new CliError('storage', `cannot write ${path}: ${fsReason(err, 'write')}`, {
    cause: err,
    hints: ['free some space (or give the file another place), then resume'],
  });

export function isCliError(err: unknown): err is CliError {
  return err instanceof Error && (err as { name?: string }).name === 'CliError' && 'kind' in err;
}

/** Ends the command with `code` after it has said all it has to say itself (e.g. 130 after an interrupted batch's summary). */
export class QuietExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
    this.name = 'QuietExit';
  }
}
