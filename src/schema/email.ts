import * as z from 'zod';
import { emailAddress, headerText, jsonRecord, plainText, scalarRecord, senderField, tolerantEnum, unset, zonedTimestamp } from './common.js';

export const EMAIL_STATUSES = ['SCHEDULED', 'SENT', 'FAILED', 'CANCELLED', 'DELIVERED'] as const;
export const EMAIL_TYPES = ['raw', 'templated'] as const;
export { DOCS_URL, MAX_BATCH, SCHEDULE_HORIZON_DAYS } from './limits.js';

export const emailSettingsSchema = z.strictObject({
  trackClicks: z.boolean().optional(),
  trackOpens: z.boolean().optional(),
});

const common = {
  settings: emailSettingsSchema.optional(),
  groupBy: headerText.min(1).optional(),
  sendAt: zonedTimestamp.optional(),
  idempotencyKey: headerText.min(1).max(256).optional(),
};

export const rawEmailSchema = z.strictObject({
  from: senderField,
  fromName: headerText.optional(),
  to: emailAddress,
  subject: headerText.min(1),
  html: plainText.min(1),
  text: plainText.optional(),
  previewText: plainText.optional(),
  replyTo: emailAddress.optional(),
  contactProperties: scalarRecord.optional(),
  ...common,
});

export const templatedEmailSchema = z.strictObject({
  template: headerText.min(1),
  to: emailAddress,
  variables: scalarRecord.optional(),
  ...common,
});

/**
 * What the service accepts beyond what mailroom sends, in the official SDK's documented shapes: the
 * sandbox takes these so that code written against the SDK runs against it, while the CLI and the
 * library keep to the spec (the schemas above). `replyTo` may be a list, also on a templated email;
 * `variables` may nest; `html` may be empty (the spec asks for a string).
 */
const replyToField = z.union([emailAddress, z.array(emailAddress).min(1)]);
export const serviceRawEmailSchema = rawEmailSchema.extend({ html: plainText, replyTo: replyToField.optional() });
export const serviceTemplatedEmailSchema = templatedEmailSchema.extend({ variables: jsonRecord.optional(), replyTo: replyToField.optional() });
export type ServiceRawEmail = z.infer<typeof serviceRawEmailSchema>;
export type ServiceTemplatedEmail = z.infer<typeof serviceTemplatedEmailSchema>;
export type ServiceEmailParse =
  | { ok: true; kind: 'raw'; email: ServiceRawEmail }
  | { ok: true; kind: 'templated'; email: ServiceTemplatedEmail }
  | { ok: false; kind: 'raw' | 'templated'; issues: z.core.$ZodIssue[] };

/** parseEmailRequest with the service's schemas: what the sandbox accepts. */
export function parseServiceEmailRequest(input: unknown): ServiceEmailParse {
  const kind = typeof input === 'object' && input !== null && 'template' in input ? 'templated' : 'raw';
  if (kind === 'templated') {
    const r = serviceTemplatedEmailSchema.safeParse(input);
    return r.success ? { ok: true, kind, email: r.data } : { ok: false, kind, issues: r.error.issues };
  }
  const r = serviceRawEmailSchema.safeParse(input);
  return r.success ? { ok: true, kind, email: r.data } : { ok: false, kind, issues: r.error.issues };
}

export type RawEmail = z.infer<typeof rawEmailSchema>;
export type TemplatedEmail = z.infer<typeof templatedEmailSchema>;
export type EmailRequest = RawEmail | TemplatedEmail;

export type EmailParse =
  | { ok: true; kind: 'raw'; email: RawEmail }
  | { ok: true; kind: 'templated'; email: TemplatedEmail }
  | { ok: false; kind: 'raw' | 'templated'; issues: z.core.$ZodIssue[] };

/**
 * Decides the kind by the presence of `template` (the schemas share `to`), so the issues reported
 * are those of the schema the caller meant rather than a union's noise.
 */
export function parseEmailRequest(input: unknown): EmailParse {
  const kind = typeof input === 'object' && input !== null && 'template' in input ? 'templated' : 'raw';
  if (kind === 'templated') {
    const r = templatedEmailSchema.safeParse(input);
    return r.success ? { ok: true, kind, email: r.data } : { ok: false, kind, issues: r.error.issues };
  }
  const r = rawEmailSchema.safeParse(input);
  return r.success ? { ok: true, kind, email: r.data } : { ok: false, kind, issues: r.error.issues };
}

export { describeIssues } from './issues.js';

/** Email result object; tolerant of fields and values a newer server adds or omits. */
export const emailResultSchema = z
  .looseObject({
    id: unset(z.string()),
    messageId: unset(z.string()),
    status: tolerantEnum(EMAIL_STATUSES),
    to: z.string(),
    type: unset(tolerantEnum(EMAIL_TYPES)),
    from: unset(z.string()),
    subject: unset(z.string()),
    template: unset(z.string()),
    groupBy: unset(z.string()),
    warning: unset(z.string()),
  })
  .refine((r) => Boolean(r.id ?? r.messageId), { message: 'has neither id nor messageId' });

export type EmailResult = z.infer<typeof emailResultSchema>;

export const sendEmailResponseSchema = z.looseObject({ email: emailResultSchema });

/** The batch answer as the library's sendBatch requires it; `failed` entries are read by api/emails.ts readBatchAnswer. */
export const batchResponseSchema = z.looseObject({
  emails: z.looseObject({
    successful: z.array(emailResultSchema),
    failed: z.array(z.unknown()),
  }),
});
