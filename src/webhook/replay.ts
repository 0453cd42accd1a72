import { usageError } from '../errors.js';
import { forwardableHeaders } from './forward.js';
import { entryBody, REDACTED_HEADERS, type JournalEntry } from './delivery-journal.js';
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

/** `--lines`: journal line numbers and ranges, `12,15-20`, as the listener prints them. */
export type LineRanges = ReadonlyArray<readonly [number, number]>;

export function parseLines(value: string): LineRanges {
  const ranges: Array<[number, number]> = [];
  for (const part of value.split(',')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
    const from = m ? Number(m[1]) : 0;
    const to = m?.[2] === undefined ? from : Number(m[2]);
    if (!m || from < 1 || to < from || !Number.isSafeInteger(to)) {
      throw usageError(`--lines: "${value}" is not a list of journal line numbers and ranges (e.g. 12,15-20)`);
    }
    ranges.push([from, to]);
  }
  return ranges;
}

export function formatLines(ranges: LineRanges): string {
  return ranges.map(([from, to]) => (from === to ? String(from) : `${from}-${to}`)).join(',');
}

const inRanges = (line: number, ranges: LineRanges) => ranges.some(([from, to]) => line >= from && line <= to);

/**
 * The smallest `--lines` that, with the same event filter, selects exactly `wanted` among the
 * replayable entries `among` (both in journal order): a range may span entries that replay skips
 * anyway (refused, filtered out), but never one of `among` that is not wanted.
 */
export function linesFor(among: readonly { line: number }[], wanted: ReadonlySet<number>): LineRanges {
  const ranges: Array<[number, number]> = [];
  let open: [number, number] | undefined;
  for (const { line } of among) {
    if (!wanted.has(line)) {
      open = undefined;
      continue;
    }
    if (open) open[1] = line;
    else ranges.push((open = [line, line]));
  }
  return ranges;
}

export interface EntryFilter {
  since?: Date;
  events?: ReadonlySet<string>;
  lines?: LineRanges;
}

/** What the listener forwards, and so what replay re-sends: accepted (verified, answered 200) events, not connection tests. */
export function replayable(e: JournalEntry, events?: ReadonlySet<string>): boolean {
  if (e.status !== 200 || !e.verified || e.body === undefined) return false;
  if (e.event === 'TESTING_CONNECTION') return false;
  return events === undefined || (e.event !== undefined && events.has(e.event));
}

/**
 * The deliveries worth replaying, in journal order: those the listener accepted (verified events
 * answered 200). Refused requests were never authentic deliveries, so they are not re-sent.
 */
export function selectEntries<E extends JournalEntry & { line?: number }>(entries: readonly E[], filter: EntryFilter): E[] {
  return entries.filter((e) => {
    if (!replayable(e, filter.events)) return false;
    if (filter.since !== undefined && Date.parse(e.receivedAt) < filter.since.getTime()) return false;
    if (filter.lines !== undefined && (e.line === undefined || !inRanges(e.line, filter.lines))) return false;
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
