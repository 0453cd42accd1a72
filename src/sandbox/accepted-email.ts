import { parseServiceEmailRequest, senderAddress, type ServiceEmailParse, type ServiceRawEmail } from '../schema/index.js';
import { parseZonedDateTime } from '../schema/datetime.js';
import { quickParseEmail } from '../schema/email-quick.js';
import type { EmailResultBody, InboxEmail } from './state.js';

// What an accepted email is, given its request entry and what the sandbox chose for it (ids, time,
// request id): EmailService builds the emails it accepts with these functions, and a restart
// replays a request the `--data` journal kept as its body (journal-lines.ts) through the same ones,
// so that it gets back exactly the emails the request made.

/** `text` undefined: generated from the html when first read (text.ts withText). */
export type Fields = Pick<InboxEmail, 'html' | 'text'> & Partial<InboxEmail>;

export type ParsedEmail = Extract<ServiceEmailParse, { ok: true }>;

/** When a scheduled email is due: `sendAt` in UTC, as the service answers it, and its instant. */
export interface SendAt {
  iso: string;
  ms: number;
}

/** What the sandbox chose for an accepted email. */
export interface Chosen {
  id: string;
  messageId: string;
  /** The time of the request (`createdAt`: its ISO form). */
  nowMs: number;
  createdAt: string;
  /** The x-request-id of the call that sent it, shown in the inbox. */
  requestId?: string | undefined;
}

/**
 * An entry of a request, checked: the quick check the CLI's batch makes before zod
 * (schema/email-quick.ts) returns exactly what zod would for the emails it vouches for, in a
 * fraction of zod's time, and leaves every other one (valid or not) to zod, which also says what is wrong.
 */
export function parseEntry(input: object): ServiceEmailParse {
  const email = quickParseEmail(input as Record<string, unknown>);
  if (email === undefined) return parseServiceEmailRequest(input);
  return 'template' in email ? { ok: true, kind: 'templated', email } : { ok: true, kind: 'raw', email };
}

/** The `sendAt` of an entry the schema accepted (so it names an instant), or undefined. */
export function sendAtOf(email: ParsedEmail['email']): SendAt | undefined {
  if (email.sendAt === undefined) return undefined;
  const when = parseZonedDateTime(email.sendAt)!;
  return { iso: when.toISOString(), ms: when.getTime() };
}

/** The fields a raw email keeps: the request's, the sender's name joined into `from` (its address checked by the caller). */
export function rawFields(email: ServiceRawEmail): Fields {
  const fields: Fields = {
    from: email.fromName !== undefined && !email.from.includes('<') ? `${email.fromName} <${senderAddress(email.from)!}>` : email.from,
    subject: email.subject,
    html: email.html,
    text: email.text,
  };
  if (email.fromName !== undefined) fields.fromName = email.fromName;
  if (email.previewText !== undefined) fields.previewText = email.previewText;
  if (email.replyTo !== undefined) fields.replyTo = email.replyTo;
  if (email.contactProperties !== undefined) fields.contactProperties = email.contactProperties;
  return fields;
}

/** The email as the inbox keeps it and the API answer for it. */
export function acceptedEmail(parsed: ParsedEmail, fields: Fields, sendAt: SendAt | undefined, chosen: Chosen): { stored: InboxEmail; result: EmailResultBody } {
  const { email, kind } = parsed;
  const { id, messageId } = chosen;
  const status = sendAt !== undefined && sendAt.ms > chosen.nowMs ? 'SCHEDULED' : 'SENT';
  const result: EmailResultBody = { id, messageId, status, to: email.to, type: kind };
  if (parsed.kind === 'raw') {
    result.from = parsed.email.from;
    result.subject = parsed.email.subject;
  } else {
    result.template = parsed.email.template;
  }
  if (email.groupBy !== undefined) result.groupBy = email.groupBy;

  const stored: InboxEmail = {
    id,
    messageId,
    status,
    type: kind,
    to: email.to,
    ...fields,
    settings: {
      trackClicks: email.settings?.trackClicks ?? true,
      trackOpens: email.settings?.trackOpens ?? kind === 'templated',
    },
    createdAt: chosen.createdAt,
  };
  if (email.groupBy !== undefined) stored.groupBy = email.groupBy;
  if (email.idempotencyKey !== undefined) stored.idempotencyKey = email.idempotencyKey;
  if (sendAt !== undefined) stored.sendAt = sendAt.iso;
  if (chosen.requestId !== undefined) stored.requestId = chosen.requestId;
  return { stored, result };
}
