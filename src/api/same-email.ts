import type { EmailRequest, EmailResult } from '../schema/index.js';

/*
 * An idempotency key the API saw before is answered with the first email it was used for, whatever
 * this request held. Telling "the same email again" (a retry: success) from "another email under a
 * used key" (nothing was sent: a conflict) is this module's one job, for `send`, the library's send
 * and sendBatch, and batch alike.
 */

/** One field of the answer that does not match the request. */
export interface FieldDifference {
  field: string;
  /** As the API returned it (the first email's). */
  was: unknown;
  /** As this request has it; undefined when it has none. */
  now: unknown;
}

/** Not compared: they name the answer or its state, not the email. (A switch: a batch asks for every field of every answer.) */
function notContent(field: string): boolean {
  switch (field) {
    case 'id':
    case 'messageId':
    case 'status':
    case 'type':
    case 'warning':
    case 'idempotencyKey':
    case 'createdAt':
    case 'updatedAt':
    case 'requestId':
      return true;
    default:
      return false;
  }
}

/** The answer of every retry of the same email, shared (nobody adds to it). */
const NO_DIFFERENCES: readonly FieldDifference[] = Object.freeze([]);
/**
 * Echoed only when the request had them: an answer holding one the request lacks is another email.
 * The others (subject, from, ...) may come back for a templated email from its template.
 */
const ONLY_WHEN_GIVEN = new Set(['groupBy', 'sendAt', 'replyTo', 'cc', 'bcc', 'variables', 'contactProperties', 'previewText', 'text', 'settings']);
const ADDRESSES = new Set(['to', 'replyTo', 'cc', 'bcc']);

const address = (v: string) => v.trim().toLowerCase();

/** `Name <a@b>` or `a@b`, as [name or undefined, lower-cased address]. */
function sender(v: string): [string | undefined, string] {
  const named = /^(.*?)\s*<([^<>]+)>$/.exec(v.trim());
  if (!named) return [undefined, address(v)];
  const name = named[1]!.trim().replace(/^"(.*)"$/, '$1');
  return [name === '' ? undefined : name, address(named[2]!)];
}

function normalized(field: string, v: unknown): unknown {
  if (typeof v === 'string') {
    if (ADDRESSES.has(field)) return address(v);
    if (field === 'sendAt') {
      const t = Date.parse(v);
      return Number.isNaN(t) ? v : t;
    }
    return v;
  }
  if (Array.isArray(v) && ADDRESSES.has(field)) return v.map((x) => (typeof x === 'string' ? address(x) : x)).sort();
  return v;
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * Every field of the answer that tells it apart from the request: each field both hold (addresses
 * compared without case, times as instants, objects by value), one the API echoes only when given,
 * the kind (raw or templated), a scheduled answer to an unscheduled request, and the sender: its
 * address always, its display name when the answer has one (an API may return the address alone).
 * Empty when the answer may be this very email.
 */
export function emailDifferences(sent: EmailRequest, got: EmailResult): readonly FieldDifference[] {
  const request = sent as Record<string, unknown>;
  const answer = got as Record<string, unknown>;
  let out: FieldDifference[] | undefined;
  const kind = 'template' in sent ? 'templated' : 'raw';
  if ((got.type === 'raw' || got.type === 'templated') && got.type !== kind) (out ??= []).push({ field: 'type', was: got.type, now: kind });
  // for...in, not Object.entries: no array per answer (JSON data: own enumerable keys only).
  for (const field in answer) {
    if (!Object.hasOwn(answer, field)) continue;
    const was = answer[field];
    if (notContent(field) || was === undefined || was === null) continue;
    const now = request[field];
    // The common case, a retry of the same email: an equal value needs no normalising.
    if (was === now) continue;
    if (field === 'from' && typeof was === 'string' && typeof now === 'string') {
      const [wasName, wasAddress] = sender(was);
      const [nowName, nowAddress] = sender(now);
      const name = nowName ?? (typeof request.fromName === 'string' ? request.fromName.trim() : undefined);
      if (wasAddress !== nowAddress || (wasName !== undefined && wasName !== name)) (out ??= []).push({ field, was, now });
      continue;
    }
    if (now === undefined) {
      if (ONLY_WHEN_GIVEN.has(field)) (out ??= []).push({ field, was, now });
      continue;
    }
    if (!same(normalized(field, was), normalized(field, now))) (out ??= []).push({ field, was, now });
  }
  // The first email was scheduled, this one is not (the API may not echo sendAt itself).
  if (got.status === 'SCHEDULED' && request.sendAt === undefined && answer.sendAt === undefined) (out ??= []).push({ field: 'sendAt', was: 'a scheduled time', now: undefined });
  return out ?? NO_DIFFERENCES;
}

const shown = (v: unknown) => (v === undefined ? 'none' : typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? String(v));

/**
 * How the email the key was first used for differs from this one, in words; undefined when it may be
 * the same email. "trs_1, to ada@example.com, subject "Hello"; from there "Ops <ops@…>", here "Billing <…>"".
 */
export function otherEmail(sent: EmailRequest, got: EmailResult): string | undefined {
  const differences = emailDifferences(sent, got);
  if (differences.length === 0) return undefined;
  const what = typeof got.template === 'string' ? `template ${got.template}` : typeof got.subject === 'string' ? `subject ${JSON.stringify(got.subject)}` : undefined;
  const first = [got.id ?? got.messageId, `to ${got.to}`, what].filter(Boolean).join(', ');
  const listed = differences.slice(0, 3).map((d) => `${d.field} there ${shown(d.was)}, here ${shown(d.now)}`);
  if (differences.length > 3) listed.push(`and ${differences.length - 3} more`);
  return `${first}; ${listed.join('; ')}`;
}
