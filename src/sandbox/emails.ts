import { randomUUID } from 'node:crypto';
import { describeIssues, DOCS_URL, MAX_BATCH, SCHEDULE_HORIZON_DAYS, senderAddress, type ServiceRawEmail, type ServiceTemplatedEmail } from '../schema/index.js';
import { acceptedEmail, parseEntry, rawFields, sendAtOf, type Fields } from './accepted-email.js';
import type { ResolvedConfig } from './config.js';
import { recipientContact, type ContactChange } from './contacts.js';
import { errorBody, type ErrorBody } from './http-errors.js';
import { SeededIds } from './seeded-ids.js';
import { renderTemplate } from './templates.js';
import { newId, type EmailResultBody, type InboxEmail, type SandboxState } from './state.js';

export type SendOutcome = { ok: true; result: EmailResultBody } | { ok: false; error: ErrorBody };

export interface BatchFailed extends ErrorBody {
  index: number;
}

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

  /**
   * `requestId`: the x-request-id of the call that sent it, shown in the inbox. `raw`: the request's
   * body as received: the email it accepts is reported as one `request` change carrying it, which
   * `--data` may journal as it is (journal-lines.ts).
   */
  send(input: unknown, now: Date, requestId?: string, raw?: Buffer): SendOutcome {
    if (raw === undefined) return this.sendOne(input, now, requestId, undefined);
    const ids = SeededIds.fresh();
    this.state.holdEmails();
    try {
      return this.sendOne(input, now, requestId, ids);
    } finally {
      this.state.releaseEmails({ bytes: raw, batch: false, entries: 1, at: this.isoOf(now), requestId, seed: ids.seed });
    }
  }

  /** Each entry on its own: a failed entry carries the body a single send would have answered. `raw`: as for `send`. */
  sendBatch(emails: unknown[], now: Date, requestId?: string, raw?: Buffer): { successful: EmailResultBody[]; failed: BatchFailed[] } {
    const successful: EmailResultBody[] = [];
    const failed: BatchFailed[] = [];
    const ids = raw === undefined ? undefined : SeededIds.fresh();
    if (ids) this.state.holdEmails();
    try {
      for (let index = 0; index < emails.length; index++) {
        const outcome = this.sendOne(emails[index], now, requestId, ids);
        if (outcome.ok) successful.push(outcome.result);
        else failed.push({ index, ...outcome.error });
      }
    } finally {
      if (raw !== undefined && ids) this.state.releaseEmails({ bytes: raw, batch: true, entries: emails.length, at: this.isoOf(now), requestId, seed: ids.seed });
    }
    return { successful, failed };
  }

  /** `ids`: a request's seeded ids (a body `--data` may journal), drawn for each email accepted: its id, message id and the id of a contact it may make. */
  private sendOne(input: unknown, now: Date, requestId: string | undefined, ids: SeededIds | undefined): SendOutcome {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return { ok: false, error: invalidPayload('the body must be a JSON object') };
    }
    const parsed = parseEntry(input);
    if (!parsed.ok) return { ok: false, error: invalidPayload(describeIssues(parsed.issues)) };
    const email = parsed.email;

    // The first result for a key is the answer for every repeat, whatever else changed.
    if (email.idempotencyKey !== undefined) {
      const first = this.state.idempotency.get(email.idempotencyKey);
      if (first) return { ok: true, result: first };
    }

    const nowMs = now.getTime();
    // Kept in UTC, as the service answers.
    const sendAt = sendAtOf(email);
    if (sendAt !== undefined) {
      if (sendAt.ms < nowMs - SEND_AT_GRACE_MS) {
        return { ok: false, error: errorBody(400, `sendAt ${sendAt.iso} is in the past`, { docsUrl: DOCS_URL }) };
      }
      if (sendAt.ms > nowMs + SCHEDULE_HORIZON_DAYS * DAY_MS) {
        return { ok: false, error: errorBody(400, `sendAt ${sendAt.iso} is more than ${SCHEDULE_HORIZON_DAYS} days ahead`, { docsUrl: DOCS_URL }) };
      }
    }

    const prepared = parsed.kind === 'raw' ? this.prepareRaw(parsed.email) : this.prepareTemplated(parsed.email);
    if ('error' in prepared) return { ok: false, error: prepared.error };

    if (this.monthlyLimitReached(now)) return { ok: false, error: this.monthlyLimitError() };

    const createdAt = this.isoOf(now);
    const chosen = ids ? { id: ids.id('email'), messageId: ids.uuid(), nowMs, createdAt, requestId } : { id: newId('email'), messageId: randomUUID(), nowMs, createdAt, requestId };
    const { stored, result } = acceptedEmail(parsed, prepared.fields, sendAt, chosen);
    const props = parsed.kind === 'raw' ? parsed.email.contactProperties : undefined;
    const change = recipientContact(this.state, email.to, props, createdAt, ids?.id('contact'));
    this.state.acceptEmail(stored, result, now, change?.contact);
    if (stored.status === 'SCHEDULED') this.hooks.scheduled(stored);
    if (change) this.hooks.contactChanged(change, createdAt);
    return { ok: true, result };
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
    return { fields: rawFields(email) };
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
