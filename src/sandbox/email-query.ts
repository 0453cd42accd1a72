import { HttpError } from './http-errors.js';
import type { InboxEmail, SandboxState } from './state.js';

/** What the inbox and `GET /_sandbox/emails` filter on; every field optional. */
export interface EmailFilter {
  /** Case-insensitive substring of to, from, from name, subject, template, id or message id. */
  q?: string;
  /** Case-insensitive substring of the recipient. */
  to?: string;
  status?: 'SENT' | 'SCHEDULED';
  kind?: 'raw' | 'templated';
}

type Query = Record<string, string | string[] | undefined>;

function one(query: Query, name: string): string | undefined {
  const v = query[name];
  const value = Array.isArray(v) ? v[v.length - 1] : v;
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** The filter of a query string; an unknown status or kind is a 400 (a typo must not read as "no match"). */
export function parseFilter(query: Query): EmailFilter {
  const filter: EmailFilter = {};
  const q = one(query, 'q');
  const to = one(query, 'to');
  const status = one(query, 'status')?.toUpperCase();
  const kind = one(query, 'kind')?.toLowerCase();
  if (q !== undefined) filter.q = q;
  if (to !== undefined) filter.to = to;
  if (status !== undefined) {
    if (status !== 'SENT' && status !== 'SCHEDULED') throw new HttpError(400, 'Invalid request: status must be SENT or SCHEDULED');
    filter.status = status;
  }
  if (kind !== undefined) {
    // "template" reads naturally in a URL; the stored type is "templated".
    const k = kind === 'template' ? 'templated' : kind;
    if (k !== 'raw' && k !== 'templated') throw new HttpError(400, 'Invalid request: kind must be raw or template');
    filter.kind = k;
  }
  return filter;
}

export function isFiltered(filter: EmailFilter): boolean {
  return filter.q !== undefined || filter.to !== undefined || filter.status !== undefined || filter.kind !== undefined;
}

function contains(value: string | undefined, needle: string): boolean {
  return value !== undefined && value.toLowerCase().includes(needle);
}

export function matches(email: InboxEmail, filter: EmailFilter): boolean {
  if (filter.status !== undefined && email.status !== filter.status) return false;
  if (filter.kind !== undefined && email.type !== filter.kind) return false;
  if (filter.to !== undefined && !contains(email.to, filter.to.toLowerCase())) return false;
  if (filter.q !== undefined) {
    const q = filter.q.toLowerCase();
    const fields = [email.to, email.from, email.fromName, email.subject, email.template, email.id, email.messageId];
    if (!fields.some((f) => contains(f, q))) return false;
  }
  return true;
}

/** The matching emails, oldest first (the order they were caught). */
export function filterEmails(emails: readonly InboxEmail[], filter: EmailFilter): InboxEmail[] {
  return isFiltered(filter) ? emails.filter((e) => matches(e, filter)) : emails.slice();
}

export interface Counts {
  total: number;
  sent: number;
  scheduled: number;
  raw: number;
  templated: number;
}

/** Every email caught since the last reset, whether or not it is still kept (`retain`). */
export function countEmails(state: SandboxState): Counts {
  const { SENT, SCHEDULED } = state.tally;
  return {
    total: state.emailTotal,
    sent: SENT.raw + SENT.templated,
    scheduled: SCHEDULED.raw + SCHEDULED.templated,
    raw: SENT.raw + SCHEDULED.raw,
    templated: SENT.templated + SCHEDULED.templated,
  };
}

/**
 * How many emails match `filter`, given those kept that match: exact for status and kind (they
 * are counted for every email), for a search only among the emails kept.
 */
export function totalMatching(state: SandboxState, filter: EmailFilter, matchingKept: number): number {
  if (filter.q !== undefined || filter.to !== undefined) return matchingKept;
  let total = 0;
  for (const status of ['SENT', 'SCHEDULED'] as const) {
    if (filter.status !== undefined && filter.status !== status) continue;
    for (const kind of ['raw', 'templated'] as const) if (filter.kind === undefined || filter.kind === kind) total += state.tally[status][kind];
  }
  return total;
}
