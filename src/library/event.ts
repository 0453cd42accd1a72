import { contactEventDataSchema, normalizeEnvelope, teamMemberJoinedDataSchema } from '../schema/events.js';
import type { WebhookEvent } from '../types.js';
import { ageProblem } from '../webhook/max-age.js';
import { WebhookSignatureError } from './public-errors.js';

const CONTACT_EVENTS = new Set(['CONTACT_CREATED', 'CONTACT_UPDATED', 'CONTACT_UNSUBSCRIBED', 'CONTACT_RESUBSCRIBED', 'CONTACT_DELETED']);

/** A verified body as a typed event: either envelope shape (schema/events.ts), known events checked against their data. */
export function readEvent(body: Uint8Array, maxAgeMs: number | undefined, now: Date): WebhookEvent {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    throw new WebhookSignatureError('not-an-event', 'the signature matches, but the body is not JSON');
  }
  const envelope = normalizeEnvelope(value);
  if (!envelope) throw new WebhookSignatureError('not-an-event', 'the signature matches, but the body is not a webhook event (no "event" and "createdAt"/"data")');
  if (maxAgeMs !== undefined) {
    // 'too-old' covers each way out of maxAgeMs (older, far in the future, no time); the message says which.
    const stale = ageProblem(envelope.createdAt, maxAgeMs, now);
    if (stale) throw new WebhookSignatureError('too-old', stale.message.replace('--max-age', 'maxAgeMs'));
  }
  const base = { createdAt: envelope.createdAt, shape: envelope.shape };
  if (CONTACT_EVENTS.has(envelope.event) && contactEventDataSchema.safeParse(envelope.data).success) {
    return { ...base, known: true, event: envelope.event as 'CONTACT_CREATED', data: envelope.data as never };
  }
  if (envelope.event === 'WORKSPACE_TEAM_MEMBER_JOINED' && teamMemberJoinedDataSchema.safeParse(envelope.data).success) {
    return { ...base, known: true, event: 'WORKSPACE_TEAM_MEMBER_JOINED', data: envelope.data as never };
  }
  return { ...base, known: false, event: envelope.event, data: envelope.data };
}
