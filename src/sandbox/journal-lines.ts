import * as z from 'zod';
import { acceptedEmail, parseEntry, rawFields, sendAtOf } from './accepted-email.js';
import { createdContact } from './contacts.js';
import { SeededIds } from './seeded-ids.js';
import type { Change, Contact, EmailChange, EmailResultBody, InboxEmail } from './state.js';

// The records of a `--data` file as the sandbox reads them back: every field a request, the inbox
// or the scheduler relies on (persistence.ts checks its snapshots with the same).
export const str = z.string();
export const emailResult = z.looseObject({ id: str, messageId: str, status: z.enum(['SENT', 'SCHEDULED']), to: str, type: z.enum(['raw', 'templated']) });
export const storedEmail = emailResult
  .extend({ html: str, text: str.optional(), settings: z.looseObject({ trackClicks: z.boolean(), trackOpens: z.boolean() }), createdAt: str, sendAt: str.optional() })
  .refine((e) => e.status !== 'SCHEDULED' || !Number.isNaN(Date.parse(e.sendAt ?? '')));
export const storedKey = z.looseObject({ id: str, displayName: str, role: str, status: str, secretKey: str, createdAt: z.iso.datetime(), updatedAt: str });
export const storedWebhook = z.looseObject({ id: str, url: str, events: z.array(str), token: str, createdAt: str });
export const contact = z.looseObject({ id: str, email: str, properties: z.record(str, z.unknown()), createdAt: str, updatedAt: str });
export const count = z.number().int().nonnegative();
export const tallyRow = z.looseObject({ raw: count, templated: count });
export const delivery = z.looseObject({ webhookId: str, event: str, url: str, attempt: z.number() });

/** A journaled change and the workspace it belongs to (`w`, absent for the first workspace). */
export type JournaledChange = Change & { w?: string };

/**
 * Every line of a journal is a JSON object with its kind in `t` and, for a workspace other than
 * the first, its id in `w`. An accepted email, the one change a send makes, is an `e` line: the
 * email as kept, and only what cannot be worked out from it (an email line of the earlier format,
 * `email`, carried its API answer and was followed by a `contact` line):
 * - its API answer (idempotency keys answer it again) is rebuilt from the email's own fields, but
 *   for `rf`, the `from` it answered where the email keeps another (`fromName` joined in), and
 *   `result` whole should it ever differ otherwise;
 * - the contact its send created, when it is what a send to a new address makes (`status:
 *   SUBSCRIBED` and the email's `contactProperties`, created at the email's time), is only its
 *   id, `c`; any other contact the send created or updated is whole, `contact`.
 */
export const lineSchema = z.discriminatedUnion('t', [
  z.object({ t: z.literal('e'), email: storedEmail, c: str.optional(), contact: contact.optional(), rf: str.optional(), result: emailResult.optional() }),
  z.object({ t: z.literal('email'), email: storedEmail, result: emailResult.optional() }),
  z.object({ t: z.literal('sent'), id: str, type: z.enum(['raw', 'templated']).optional() }),
  z.object({ t: z.literal('emailDeleted'), id: str }),
  z.object({ t: z.literal('emailsCleared') }),
  z.object({ t: z.literal('contact'), contact }),
  z.object({ t: z.literal('contactDeleted'), email: str }),
  z.object({ t: z.literal('key'), key: storedKey }),
  z.object({ t: z.literal('keyDeleted'), id: str }),
  z.object({ t: z.literal('webhook'), webhook: storedWebhook }),
  z.object({ t: z.literal('webhookDeleted'), id: str }),
  z.object({ t: z.literal('delivery'), record: delivery, dropped: z.literal(true).optional() }),
  z.object({ t: z.literal('primaryKey'), id: str }),
  z.object({ t: z.literal('reset') }),
  z.object({ t: z.literal('workspace'), workspace: z.looseObject({ id: str, name: str }) }),
  z.object({ t: z.literal('workspaceDeleted'), id: str }),
]);

type Line = z.infer<typeof lineSchema>;

const isStr = (v: unknown): v is string => typeof v === 'string';
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What `storedEmail` checks, field by field, without building a parse result. */
function isStoredEmail(e: unknown): boolean {
  if (!isObject(e)) return false;
  const { settings } = e;
  return (
    isStr(e.id) &&
    isStr(e.messageId) &&
    (e.status === 'SENT' || (e.status === 'SCHEDULED' && isStr(e.sendAt) && !Number.isNaN(Date.parse(e.sendAt)))) &&
    isStr(e.to) &&
    (e.type === 'raw' || e.type === 'templated') &&
    isStr(e.html) &&
    (e.text === undefined || isStr(e.text)) &&
    isObject(settings) &&
    typeof settings.trackClicks === 'boolean' &&
    typeof settings.trackOpens === 'boolean' &&
    isStr(e.createdAt) &&
    (e.sendAt === undefined || isStr(e.sendAt))
  );
}

/**
 * The lines a journal holds by the thousand (an accepted email, a scheduled one sent, a delivery
 * attempt) checked by hand: true only where `lineSchema` would accept the line too, so that a
 * start after a crash replays a large journal without building a zod result per line. Anything
 * else, and any line this refuses, goes through the schema, which has the last word.
 */
function isCommonLine(json: Record<string, unknown>): boolean {
  switch (json.t) {
    case 'e':
      return (
        isStoredEmail(json.email) &&
        (json.c === undefined || isStr(json.c)) &&
        (json.rf === undefined || isStr(json.rf)) &&
        json.contact === undefined &&
        json.result === undefined
      );
    case 'sent':
      return isStr(json.id) && (json.type === undefined || json.type === 'raw' || json.type === 'templated');
    case 'delivery': {
      const r = json.record;
      return isObject(r) && isStr(r.webhookId) && isStr(r.event) && isStr(r.url) && typeof r.attempt === 'number' && (json.dropped === undefined || json.dropped === true);
    }
    default:
      return false;
  }
}

/** The API answer EmailService gave for an email (emails.ts send), from the email as kept. */
function answerOf(email: InboxEmail, from: string | undefined): EmailResultBody {
  const result: EmailResultBody = { id: email.id, messageId: email.messageId, status: email.status, to: email.to, type: email.type };
  if (email.type === 'raw') {
    if (from !== undefined) result.from = from;
    if (email.subject !== undefined) result.subject = email.subject;
  } else if (email.template !== undefined) result.template = email.template;
  if (email.groupBy !== undefined) result.groupBy = email.groupBy;
  return result;
}

/** True when `answerOf` gives `result` back, given its `from`: no other field differs. */
function rebuilds(result: EmailResultBody, email: InboxEmail): boolean {
  return (
    result.id === email.id &&
    result.messageId === email.messageId &&
    result.status === email.status &&
    result.to === email.to &&
    result.type === email.type &&
    result.subject === (email.type === 'raw' ? email.subject : undefined) &&
    result.template === (email.type === 'templated' ? email.template : undefined) &&
    result.groupBy === email.groupBy &&
    (email.type === 'raw' ? result.from !== undefined || email.from === undefined : result.from === undefined)
  );
}

/** The contact a send to a new address makes (contacts.ts recipientContact), from the email. */
function madeContact(email: InboxEmail, id: string): Contact {
  return createdContact(email.to, email.contactProperties, email.createdAt, id);
}

function isMadeContact(c: Contact, email: InboxEmail): boolean {
  if (c.email !== email.to || c.createdAt !== email.createdAt || c.updatedAt !== email.createdAt) return false;
  const props = email.contactProperties;
  let n = 1;
  if (props !== undefined) {
    for (const key in props) {
      if (key === 'status' || c.properties[key] !== props[key]) return false;
      n += 1;
    }
  }
  if (c.properties.status !== 'SUBSCRIBED') return false;
  for (const key in c.properties) if (--n < 0 || !Object.hasOwn(c.properties, key)) return false;
  return n === 0;
}

/** A journal line in pieces: strings and a request's body as received; the journal writes them one after the other. */
export type LinePieces = (string | Buffer)[];

/** The journal line of a change of the first workspace, or of workspace `w`; a request's, possibly in pieces. */
export function encodeChange(change: Change, w?: string): string | LinePieces {
  if (change.t === 'request') return encodeRequest(change, w) ?? change.emails.map((email) => encodeChange(email, w)).join('\n');
  const where = w === undefined ? '' : `"w":${JSON.stringify(w)},`;
  if (change.t !== 'email') return w === undefined ? JSON.stringify(change) : `{${where}${JSON.stringify(change).slice(1)}`;
  const { email, result, contact: made } = change;
  let extra = '';
  if (made !== undefined) extra += isMadeContact(made, email) ? `"c":${JSON.stringify(made.id)},` : `"contact":${JSON.stringify(made)},`;
  if (result !== undefined) {
    if (!rebuilds(result, email)) extra += `"result":${JSON.stringify(result)},`;
    else if (result.from !== email.from && result.from !== undefined) extra += `"rf":${JSON.stringify(result.from)},`;
  }
  return `{"t":"e",${where}${extra}"email":${JSON.stringify(email)}}`;
}

/**
 * A request every entry of which was accepted as a new raw email is one line holding its body as
 * it came, with what the sandbox chose for it: `{"t":"batch","at":<time>,"r":<request id>,"seed":
 * <the seed its ids were drawn from, seeded-ids.ts>,"c":<per email, 1 when it made a contact, else
 * 0>,"body":<the body>}` (`"t":"send"` for `POST /v1/emails`). Read back, each entry draws its ids
 * from the seed in the order the request drew them (id, message id, contact id) and goes through
 * the functions that built its email (accepted-email.ts), given those ids and that time. Nothing
 * is encoded per email: the body's bytes are written as they are. (Lines written on 2026-11-26
 * before the seed carry the ids themselves: `"ids":[<id>,<message id>,<contact id or "">,...]`.)
 * Any other request (an entry refused or answered from its idempotency key, a template rendered
 * from the config, a contact updated) is written email by email.
 */
function encodeRequest(change: Extract<Change, { t: 'request' }>, w: string | undefined): LinePieces | undefined {
  const { body, emails } = change;
  if (body === undefined || emails.length !== body.entries) return undefined;
  // The seed gave these emails their ids (EmailService draws them for every email of a body it is given).
  if (emails[0]!.email.id !== new SeededIds(body.seed).id('email')) return undefined;
  let made = '';
  for (const { email, contact } of emails) {
    if (email.type !== 'raw' || email.createdAt !== body.at || email.requestId !== body.requestId) return undefined;
    if (contact === undefined) made += '0';
    else if (isMadeContact(contact, email)) made += '1';
    else return undefined;
  }
  const where = w === undefined ? '' : `"w":${JSON.stringify(w)},`;
  const r = body.requestId === undefined ? '' : `"r":${JSON.stringify(body.requestId)},`;
  return [`{"t":"${body.batch ? 'batch' : 'send'}",${where}"at":"${body.at}",${r}"seed":"${body.seed}","c":"${made}","body":`, oneLine(body.bytes), '}'];
}

/**
 * A JSON text on one line: a line feed in it can only be whitespace between tokens (inside a
 * string it is escaped), so a space in its place reads the same; no byte of a UTF-8 character is one.
 */
function oneLine(bytes: Buffer): Buffer {
  if (bytes.indexOf(10) < 0) return bytes;
  const copy = Buffer.from(bytes);
  for (let i = copy.indexOf(10); i >= 0; i = copy.indexOf(10, i + 1)) copy[i] = 32;
  return copy;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The emails of a request line (encodeRequest), built again; undefined when the line is not one. */
function decodeRequest(json: Record<string, unknown>): Extract<Change, { t: 'request' }> | undefined {
  const { at, r, body } = json;
  if (!isStr(at) || !ISO_TIME.test(at) || (r !== undefined && !isStr(r))) return undefined;
  const nowMs = Date.parse(at);
  if (Number.isNaN(nowMs)) return undefined;
  const entries = json.t === 'send' ? [body] : isObject(body) && Array.isArray(body.emails) ? body.emails : undefined;
  if (entries === undefined || entries.length === 0) return undefined;
  const chosen = idsOf(json, entries.length);
  if (chosen === undefined) return undefined;
  const emails: EmailChange[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entry: unknown = entries[i];
    if (!isObject(entry)) return undefined;
    const parsed = parseEntry(entry);
    if (!parsed.ok || parsed.kind !== 'raw') return undefined;
    const [id, messageId, made] = chosen(i);
    const { stored, result } = acceptedEmail(parsed, rawFields(parsed.email), sendAtOf(parsed.email), { id, messageId, nowMs, createdAt: at, requestId: r });
    const change: EmailChange = { t: 'email', email: stored };
    if (stored.idempotencyKey !== undefined) change.result = result;
    if (made !== undefined) change.contact = createdContact(stored.to, parsed.email.contactProperties, at, made);
    emails.push(change);
  }
  return { t: 'request', emails };
}

/** The ids of a request line's entries, in order (each call the next entry's): from its seed, or the ids it lists. */
function idsOf(json: Record<string, unknown>, n: number): ((i: number) => [string, string, string | undefined]) | undefined {
  const { seed, c, ids } = json;
  if (SeededIds.isSeed(seed) && ids === undefined) {
    if (!isStr(c) || c.length !== n || !/^[01]*$/.test(c)) return undefined;
    const series = new SeededIds(seed);
    return (i) => {
      const drawn: [string, string, string | undefined] = [series.id('email'), series.uuid(), series.id('contact')];
      if (c[i] === '0') drawn[2] = undefined;
      return drawn;
    };
  }
  if (seed !== undefined || c !== undefined || !Array.isArray(ids) || ids.length !== n * 3 || !ids.every(isStr)) return undefined;
  return (i) => [ids[i * 3] as string, ids[i * 3 + 1] as string, ids[i * 3 + 2] === '' ? undefined : (ids[i * 3 + 2] as string)];
}

/** The change a journal line holds (this format or the earlier one), or undefined when it is not one. */
export function decodeLine(line: string): JournaledChange | undefined {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isObject(json) || (json.w !== undefined && typeof json.w !== 'string')) return undefined;
  if (json.t === 'batch' || json.t === 'send') {
    const request: JournaledChange | undefined = decodeRequest(json);
    if (request && typeof json.w === 'string') request.w = json.w;
    return request;
  }
  let line_: Line;
  if (isCommonLine(json)) line_ = common(json);
  else {
    const parsed = lineSchema.safeParse(json);
    if (!parsed.success) return undefined;
    line_ = parsed.data;
    // zod's result puts a record's known fields first: the records as read keep the order they were written in (and served).
    const fields = line_ as Record<string, unknown>;
    for (const key in fields) if (isObject(fields[key])) fields[key] = json[key];
  }
  let change: JournaledChange;
  if (line_.t === 'e') {
    const email = restoreText(line_.email as InboxEmail);
    change = { t: 'email', email };
    if (email.idempotencyKey !== undefined) change.result = (line_.result as EmailResultBody | undefined) ?? answerOf(email, line_.rf ?? email.from);
    if (line_.c !== undefined) change.contact = madeContact(email, line_.c);
    else if (line_.contact !== undefined) change.contact = line_.contact as Contact;
  } else {
    change = line_ as JournaledChange;
    if (change.t === 'email') change.email = restoreText(change.email);
  }
  if (typeof json.w === 'string') change.w = json.w;
  return change;
}

/** A line `isCommonLine` checked, with only the fields the schema keeps (it drops `w` and unknown keys). */
function common(json: Record<string, unknown>): Line {
  const line = json as Line;
  switch (line.t) {
    case 'e': {
      const out: Line = { t: 'e', email: line.email };
      if (line.c !== undefined) out.c = line.c;
      if (line.rf !== undefined) out.rf = line.rf;
      return out;
    }
    case 'sent':
      return line.type === undefined ? { t: 'sent', id: line.id } : { t: 'sent', id: line.id, type: line.type };
    case 'delivery':
      return line.dropped === undefined ? { t: 'delivery', record: line.record } : { t: 'delivery', record: line.record, dropped: true };
    default:
      throw new Error(`not a common journal line: ${line.t}`);
  }
}

/**
 * An email saved before its text was generated (JSON leaves the undefined `text` out; text.ts
 * withText) gets the key back in its place after `html`, as when it was caught.
 */
export function restoreText(email: InboxEmail): InboxEmail {
  if ('text' in email) return email;
  const from = email as unknown as Record<string, unknown>;
  const restored: Record<string, unknown> = {};
  // for...in, not Object.entries: no pair array per key, for every email a journal replays. A parsed object has no inherited keys.
  for (const key in from) {
    restored[key] = from[key];
    if (key === 'html') restored.text = undefined;
  }
  return restored as unknown as InboxEmail;
}
