import { isMailroomError, type ErrorKind } from './errors.js';

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
  checks: 10,
  notCaught: 11,
  interrupted: 130,
} as const;

/** The name of an exit code: what `--json` error documents call `kind`. */
export type ExitName = Exclude<keyof typeof EXIT, 'ok'>;

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
  checks: '`lint` found a problem at or above `--fail-on` (the email itself, not the command line: that is 2)',
  notCaught: '`sandbox wait` ended at --timeout before the emails it waits for were caught',
  interrupted: 'interrupted by Ctrl-C: the command stopped (a batch first settles its requests in flight; sandbox and webhooks listen stop cleanly, and exit 0 on SIGTERM)',
};

/**
 * The one place an error's kind becomes an exit code. 5xx after retries counts as "network" (6), not
 * "rejected": the request was fine and may succeed later, which is what a CI retry wrapper needs to know.
 */
const EXIT_OF_KIND: Record<ErrorKind, ExitName> = {
  validation: 'usage',
  authentication: 'auth',
  permission: 'auth',
  'rate-limit': 'limit',
  'sending-limit': 'limit',
  rejected: 'rejected',
  'idempotency-conflict': 'rejected',
  server: 'network',
  connection: 'network',
  timeout: 'network',
  aborted: 'interrupted',
  'unexpected-response': 'unexpected',
  signature: 'signature',
  storage: 'storage',
  partial: 'partial',
  'not-caught': 'notCaught',
  unexpected: 'unexpected',
};

/** The exit code's name for any error: a mailroom error's by its kind, anything else `unexpected`. */
export function exitNameOf(err: unknown): ExitName {
  return isMailroomError(err) ? (EXIT_OF_KIND[err.kind] ?? 'unexpected') : 'unexpected';
}

export function exitCodeOf(err: unknown): number {
  return EXIT[exitNameOf(err)];
}
