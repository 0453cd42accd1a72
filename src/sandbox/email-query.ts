import { HttpError } from './errors.js';
import type { InboxEmail } from './state.js';

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

export function countEmails(emails: readonly InboxEmail[]): Counts {
  const counts: Counts = { total: emails.length, sent: 0, scheduled: 0, raw: 0, templated: 0 };
  for (const e of emails) {
    if (e.status === 'SENT') counts.sent += 1;
    else counts.scheduled += 1;
    if (e.type === 'raw') counts.raw += 1;
    else counts.templated += 1;
  }
  return counts;
}
