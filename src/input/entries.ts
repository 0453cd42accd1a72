import { isMailroomError } from '../errors.js';
import type { EmailRequest } from '../schema/email.js';
import { quickParseEmail } from '../schema/email-quick.js';
import { parseZonedDateTime } from '../schema/datetime.js';
import type { InputItem } from './json-stream.js';
import { canonicalSendAt, checkSchedule } from './time.js';
import { setOwn } from '../schema/own-field.js';

/** Values from `batch` flags, applied to every entry that lacks them. */
export interface EntryDefaults {
  from?: string;
  subject?: string;
  template?: string;
  html?: string;
  groupBy?: string;
  /** Already parsed to a UTC ISO string. */
  sendAt?: string;
}

export interface ValidEntry {
  ok: true;
  index: number;
  line: number;
  email: EmailRequest;
  /** Set by the batch run for stdin input: the journal keeps it to check a resume's input. */
  inputHash?: number;
  /** Set by the batch run when it writes `--failed`: the entry's text as read (InputItem.raw). */
  raw?: string;
}

export interface InvalidEntry {
  ok: false;
  index: number;
  line: number;
  error: string;
  /** The entry with defaults applied, when it was an object. */
  entry?: Record<string, unknown>;
  /** Set by the batch run when it writes `--failed`: the entry's text as read (InputItem.raw). */
  raw?: string;
}

export type PreparedEntry = ValidEntry | InvalidEntry;

/**
 * Turns one input item into the email to send: annotation fields (`_error`, `_index`, ... as written
 * by `--failed`) dropped, defaults applied, checked against the wire schema and the scheduling
 * horizon, and given the run's idempotency key unless it carries its own.
 *
 * Synchronous whenever the quick check vouches for the entry, so valid input never loads zod; an
 * entry it cannot vouch for is answered by the zod schemas, loaded then, hence the promise.
 */
export function prepareEntry(item: InputItem, index: number, defaults: EntryDefaults, keyFor: (index: number) => string, now: () => Date): PreparedEntry | Promise<PreparedEntry> {
  const { line } = item;
  if (item.error !== undefined) return { ok: false, index, line, error: item.error };
  const value = item.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, index, line, error: `an email must be a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}` };
  }
  const entry = withDefaults(value as Record<string, unknown>, defaults);
  const email = quickParseEmail(entry);
  if (email === undefined) return fullCheck(entry, index, line, keyFor, now);
  return finish(email, entry, index, line, keyFor, now);
}

async function fullCheck(entry: Record<string, unknown>, index: number, line: number, keyFor: (index: number) => string, now: () => Date): Promise<PreparedEntry> {
  const { describeIssues, parseEmailRequest } = await import('../schema/email.js');
  const parsed = parseEmailRequest(entry);
  if (!parsed.ok) return { ok: false, index, line, error: describeIssues(parsed.issues), entry };
  return finish(parsed.email, entry, index, line, keyFor, now);
}

function finish(email: EmailRequest, entry: Record<string, unknown>, index: number, line: number, keyFor: (index: number) => string, now: () => Date): PreparedEntry {
  if (email.sendAt !== undefined) {
    try {
      checkSchedule(parseZonedDateTime(email.sendAt)!, now(), 'sendAt');
    } catch (err) {
      if (!isMailroomError(err)) throw err;
      return { ok: false, index, line, error: err.message, entry };
    }
  }
  email.idempotencyKey ??= keyFor(index);
  return { ok: true, index, line, email };
}

function withDefaults(value: Record<string, unknown>, d: EntryDefaults): Record<string, unknown> {
  // The common entry is already the email: nothing to drop, add or rewrite, so no copy is made.
  if (nothingToApply(value, d)) return value;
  const entry: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (!key.startsWith('_')) setOwn(entry, key, value[key]);
  if (entry.template === undefined && entry.html === undefined) {
    if (d.template !== undefined) entry.template = d.template;
    else if (d.html !== undefined) entry.html = d.html;
  }
  if (entry.template !== undefined) {
    // The service's invalid-payload message lists variables as required (observed from the real service).
    entry.variables ??= {};
  } else {
    if (d.from !== undefined) entry.from ??= d.from;
    if (d.subject !== undefined) entry.subject ??= d.subject;
  }
  if (d.groupBy !== undefined) entry.groupBy ??= d.groupBy;
  if (d.sendAt !== undefined) entry.sendAt ??= d.sendAt;
  if (entry.sendAt !== undefined) entry.sendAt = canonicalSendAt(entry.sendAt);
  return entry;
}

/** Whether withDefaults would return an equal copy: no defaults, no annotation field, no sendAt to rewrite, no variables to add. */
function nothingToApply(value: Record<string, unknown>, d: EntryDefaults): boolean {
  if (d.from !== undefined || d.subject !== undefined || d.template !== undefined || d.html !== undefined || d.groupBy !== undefined || d.sendAt !== undefined) return false;
  if (value.sendAt !== undefined || (value.template !== undefined && value.variables === undefined)) return false;
  for (const key in value) if (key.charCodeAt(0) === 95) return false;
  return true;
}
