import { usageError } from '../errors.js';
import { forwardableHeaders } from './forward.js';
import { entryBody, REDACTED_HEADERS, type JournalEntry } from './journal.js';
import { findSignatureHeader, sign, SIGNATURE_HEADER } from './signature.js';

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `--since`: an ISO 8601 time, or a span back from now (`90s`, `30m`, `1h`, `2d`; a leading `-` is allowed). */
export function parseSince(value: string, now: Date = new Date()): Date {
  const input = value.trim();
  const relative = /^-?(\d+)([smhd])$/.exec(input);
  if (relative) return new Date(now.getTime() - Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS]);
  const when = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/i.test(input) ? new Date(input) : undefined;
  if (!when || Number.isNaN(when.getTime())) {
    throw usageError(`--since: "${value}" is neither an ISO 8601 time (2026-11-22T08:00:00Z) nor a span like 30m, 1h, 2d`);
  }
  return when;
}

/**
 * The deliveries worth replaying, in journal order: those the listener accepted (verified events
 * answered 200). Refused requests were never authentic deliveries, so they are not re-sent.
 */
export function selectEntries(entries: JournalEntry[], filter: { since?: Date; events?: ReadonlySet<string> }): JournalEntry[] {
  return entries.filter((e) => {
    if (e.status !== 200 || !e.verified || e.body === undefined) return false;
    if (e.event === 'TESTING_CONNECTION') return false;
    if (filter.events !== undefined && (e.event === undefined || !filter.events.has(e.event))) return false;
    if (filter.since !== undefined && Date.parse(e.receivedAt) < filter.since.getTime()) return false;
    return true;
  });
}

/**
 * The journalled request as it will be re-sent: same bytes, same headers (less the credentials the
 * journal redacted: a literal "[redacted]" would reach the app), a fresh signature.
 */
export function replayRequest(entry: JournalEntry, token: string): { body: Buffer; headers: Record<string, string | string[]> } {
  const body = entryBody(entry)!;
  const headers = forwardableHeaders(entry.headers);
  for (const name of REDACTED_HEADERS) delete headers[name];
  const original = findSignatureHeader(headers);
  headers[original?.name ?? SIGNATURE_HEADER] = sign(token, body);
  return { body, headers };
}
