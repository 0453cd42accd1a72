import { randomUUID } from 'node:crypto';
import { describeIssues, DOCS_URL, MAX_BATCH, parseServiceEmailRequest, SCHEDULE_HORIZON_DAYS, senderAddress, type ServiceRawEmail, type ServiceTemplatedEmail } from '../schema/index.js';
import { parseZonedDateTime } from '../schema/datetime.js';
import type { ServiceEmailParse } from '../schema/email.js';
import { quickParseEmail } from '../schema/email-quick.js';
import type { ResolvedConfig } from './config.js';
import { recipientContact, type ContactChange } from './contacts.js';
import { errorBody, type ErrorBody } from './http-errors.js';
import { renderTemplate } from './templates.js';
import { newId, type EmailResultBody, type InboxEmail, type SandboxState } from './state.js';

export type SendOutcome = { ok: true; result: EmailResultBody } | { ok: false; error: ErrorBody };

export interface BatchFailed extends ErrorBody {
  index: number;
}

/** `text` undefined: generated from the html when first read (text.ts withText). */
type Fields = Pick<InboxEmail, 'html' | 'text'> & Partial<InboxEmail>;
type Prepared = { fields: Fields } | { error: ErrorBody };

export interface EmailHooks {
  /** A contact was created or updated by a send. */
  contactChanged(change: NonNullable<ContactChange>, now: string): void;
  /** An email with a future `sendAt` was accepted. */
  scheduled(email: InboxEmail): void;
}

const DAY_MS = 86_400_000;
/** A `sendAt` this far in the past is taken as "now" (clock skew), anything older is rejected. */
const SEND_AT_GRACE_MS = 60_000;

// The service's own wording lists `variables` among a templated email's fields, though it accepts
// their absence (docs/sandbox-guide.md): the sandbox says what the service says.
const WHAT_IS_NEEDED = 'the payload must match the raw email schema (from, to, subject, html) or the templated email schema (template, to, variables)';

/**
 * The check the CLI's batch makes before zod (schema/email-quick.ts): it returns exactly what zod
 * would for the emails it vouches for, in a fraction of zod's time, and leaves every other one
 * (valid or not) to zod, which also says what is wrong.
 */
function quickParse(input: Record<string, unknown>): ServiceEmailParse | undefined {
  const email = quickParseEmail(input);
  if (email === undefined) return undefined;
  return 'template' in email ? { ok: true, kind: 'templated', email } : { ok: true, kind: 'raw', email };
}

export function invalidPayload(detail: string): ErrorBody {
  return errorBody(400, `Invalid payload: ${detail}; ${WHAT_IS_NEEDED}`, { docsUrl: DOCS_URL });
}

/** Validation, sender and template rules, scheduling, idempotency and the monthly limit of one email. */
export class EmailService {
  constructor(
    private readonly state: SandboxState,
    private readonly config: ResolvedConfig,
    private readonly hooks: EmailHooks,
  ) {}

  /** A batch's emails share one `now`: its ISO form is made once. */
  private isoOf(now: Date): string {
    if (now !== this.isoAt) {
      this.isoAt = now;
      this.iso = now.toISOString();
    }
    return this.iso;
  }

  private isoAt: Date | undefined;
  private iso = '';

  monthlyLimitReached(now: Date): boolean {
    const limit = this.config.monthlyLimit;
    return limit !== undefined && this.state.sentIn(now) >= limit;
  }

  /** True when an entry repeats an accepted idempotency key: its first result is owed even past the limit. */
  repeatsAcceptedKey(entries: unknown[]): boolean {
    return entries.some((e) => {
      const key = typeof e === 'object' && e !== null ? (e as { idempotencyKey?: unknown }).idempotencyKey : undefined;
      return typeof key === 'string' && this.state.idempotency.has(key);
    });
  }

  monthlyLimitError(): ErrorBody {
    return errorBody(403, `Monthly sending limit reached (${this.config.monthlyLimit} emails this month)`);
  }

  /** `requestId`: the x-request-id of the call that sent it, shown in the inbox. */
  send(input: unknown, now: Date, requestId?: string): SendOutcome {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return { ok: false, error: invalidPayload('the body must be a JSON object') };
    }
    const parsed = quickParse(input as Record<string, unknown>) ?? parseServiceEmailRequest(input);
    if (!parsed.ok) return { ok: false, error: invalidPayload(describeIssues(parsed.issues)) };
    const email = parsed.email;

    // The first result for a key is the answer for every repeat, whatever else changed.
    if (email.idempotencyKey !== undefined) {
      const first = this.state.idempotency.get(email.idempotencyKey);
      if (first) return { ok: true, result: first };
    }

    const nowMs = now.getTime();
    let sendAtMs: number | undefined;
    if (email.sendAt !== undefined) {
      // The schema accepted it, so it names an instant; it is kept in UTC, as the service answers.
      const when = parseZonedDateTime(email.sendAt)!;
      email.sendAt = when.toISOString();
      sendAtMs = when.getTime();
      if (sendAtMs < nowMs - SEND_AT_GRACE_MS) {
        return { ok: false, error: errorBody(400, `sendAt ${email.sendAt} is in the past`, { docsUrl: DOCS_URL }) };
      }
      if (sendAtMs > nowMs + SCHEDULE_HORIZON_DAYS * DAY_MS) {
        return { ok: false, error: errorBody(400, `sendAt ${email.sendAt} is more than ${SCHEDULE_HORIZON_DAYS} days ahead`, { docsUrl: DOCS_URL }) };
      }
    }

    const prepared = parsed.kind === 'raw' ? this.prepareRaw(parsed.email) : this.prepareTemplated(parsed.email);
    if ('error' in prepared) return { ok: false, error: prepared.error };

    if (this.monthlyLimitReached(now)) return { ok: false, error: this.monthlyLimitError() };

    const createdAt = this.isoOf(now);
    const status = sendAtMs !== undefined && sendAtMs > nowMs ? 'SCHEDULED' : 'SENT';
    const id = newId('email');
    const messageId = randomUUID();
    const result: EmailResultBody = { id, messageId, status, to: email.to, type: parsed.kind };
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
      type: parsed.kind,
      to: email.to,
      ...prepared.fields,
      settings: {
        trackClicks: email.settings?.trackClicks ?? true,
        trackOpens: email.settings?.trackOpens ?? parsed.kind === 'templated',
      },
      createdAt,
    };
    if (email.groupBy !== undefined) stored.groupBy = email.groupBy;
    if (email.idempotencyKey !== undefined) stored.idempotencyKey = email.idempotencyKey;
    if (email.sendAt !== undefined) stored.sendAt = email.sendAt;
    if (requestId !== undefined) stored.requestId = requestId;

    const props = parsed.kind === 'raw' ? parsed.email.contactProperties : undefined;
    const change = recipientContact(this.state, email.to, props, createdAt);
    this.state.acceptEmail(stored, result, now, change?.contact);
    if (status === 'SCHEDULED') this.hooks.scheduled(stored);
    if (change) this.hooks.contactChanged(change, createdAt);
    return { ok: true, result };
  }

  /** Each entry on its own: a failed entry carries the body a single send would have answered. */
  sendBatch(emails: unknown[], now: Date, requestId?: string): { successful: EmailResultBody[]; failed: BatchFailed[] } {
    const successful: EmailResultBody[] = [];
    const failed: BatchFailed[] = [];
    for (let index = 0; index < emails.length; index++) {
      const outcome = this.send(emails[index], now, requestId);
      if (outcome.ok) successful.push(outcome.result);
      else failed.push({ index, ...outcome.error });
    }
    return { successful, failed };
  }

  private senderError(address: string): ErrorBody | undefined {
    const lower = address.toLowerCase();
    const domain = lower.slice(lower.lastIndexOf('@') + 1);
    if (this.config.verifiedEmails.includes(lower) || this.config.verifiedDomains.includes(domain)) return undefined;
    return errorBody(400, `Sender ${address} is not a verified email address and is not on a verified domain`, {
      allowedEmails: this.config.verifiedEmails,
      allowedDomains: this.config.verifiedDomains,
      docsUrl: DOCS_URL,
    });
  }

  private prepareRaw(email: ServiceRawEmail): Prepared {
    const address = senderAddress(email.from)!;
    const rejected = this.senderError(address);
    if (rejected) return { error: rejected };
    const fields: Fields = {
      from: email.fromName !== undefined && !email.from.includes('<') ? `${email.fromName} <${address}>` : email.from,
      subject: email.subject,
      html: email.html,
      text: email.text,
    };
    if (email.fromName !== undefined) fields.fromName = email.fromName;
    if (email.previewText !== undefined) fields.previewText = email.previewText;
    if (email.replyTo !== undefined) fields.replyTo = email.replyTo;
    if (email.contactProperties !== undefined) fields.contactProperties = email.contactProperties;
    return { fields };
  }

  private prepareTemplated(email: ServiceTemplatedEmail): Prepared {
    const templates = this.config.templates;
    if (!Object.hasOwn(templates, email.template)) {
      const known = Object.keys(templates).join(', ');
      return { error: errorBody(400, `Template "${email.template}" does not exist (templates: ${known})`, { docsUrl: DOCS_URL }) };
    }
    const rendered = renderTemplate(templates[email.template]!, email.variables);
    const fields: Fields = {
      template: email.template,
      subject: rendered.subject,
      html: rendered.html,
      text: undefined,
    };
    if (rendered.from !== undefined) fields.from = rendered.from;
    if (email.variables !== undefined) fields.variables = email.variables;
    if (email.replyTo !== undefined) fields.replyTo = email.replyTo;
    return { fields };
  }
}

export function batchEntriesError(body: unknown): ErrorBody | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return invalidPayload('the body must be a JSON object { "emails": [...] }');
  const extra = Object.keys(body).filter((k) => k !== 'emails');
  if (extra.length > 0) return invalidPayload(`unknown field${extra.length > 1 ? 's' : ''} ${extra.join(', ')}`);
  const emails = (body as { emails?: unknown }).emails;
  if (!Array.isArray(emails)) return invalidPayload('emails: must be an array of 1 to 50 emails');
  if (emails.length < 1 || emails.length > MAX_BATCH) {
    return errorBody(400, `A batch holds 1 to ${MAX_BATCH} emails; got ${emails.length}`, { docsUrl: DOCS_URL });
  }
  return undefined;
}
