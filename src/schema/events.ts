import * as z from 'zod';

/** The six webhook events of the public API, with what each means (shown by `webhooks events`). */
export const EVENTS = {
  CONTACT_CREATED: 'A contact was created.',
  CONTACT_UPDATED: 'A contact was updated.',
  CONTACT_UNSUBSCRIBED: 'A contact unsubscribed.',
  CONTACT_RESUBSCRIBED: 'A contact resubscribed.',
  CONTACT_DELETED: 'A contact was deleted.',
  WORKSPACE_TEAM_MEMBER_JOINED: 'A team member joined the workspace.',
} as const;

export type EventName = keyof typeof EVENTS;
export const EVENT_NAMES = Object.keys(EVENTS) as [EventName, ...EventName[]];
export const eventNameSchema = z.enum(EVENT_NAMES);

export function isEventName(value: string): value is EventName {
  return Object.hasOwn(EVENTS, value);
}

export const contactSchema = z.looseObject({
  id: z.string(),
  email: z.string(),
  properties: z.looseObject({
    firstName: z.string().nullable().optional(),
    lastName: z.string().nullable().optional(),
    email: z.string().nullable().optional(),
  }),
  createdAt: z.string(),
  workspaceId: z.string().optional(),
});
export type Contact = z.infer<typeof contactSchema>;

export const contactEventDataSchema = z.looseObject({ contact: contactSchema });
export const teamMemberJoinedDataSchema = z.looseObject({
  workspace: z.looseObject({ id: z.string(), name: z.string() }),
  user: z.looseObject({ id: z.string(), email: z.string(), name: z.string() }),
});

/** The documented envelope (public API docs): what the sandbox emits. */
export const specEnvelopeSchema = z.looseObject({
  event: z.string(),
  createdAt: z.string(),
  data: z.record(z.string(), z.unknown()),
});

/** The shape observed from the real service, which differs from the documented one. */
export const observedEnvelopeSchema = z.looseObject({
  event: z.string(),
  payload: z.record(z.string(), z.unknown()).optional(),
  timestamp: z.union([z.string(), z.number()]).optional(),
  version: z.number().optional(),
});

export interface NormalizedEvent {
  event: string;
  createdAt: string | undefined;
  data: Record<string, unknown>;
  shape: 'spec' | 'observed';
}

/** Reads either envelope shape into one form; undefined when the body is neither. */
export function normalizeEnvelope(body: unknown): NormalizedEvent | undefined {
  const spec = specEnvelopeSchema.safeParse(body);
  if (spec.success) return { event: spec.data.event, createdAt: spec.data.createdAt, data: spec.data.data, shape: 'spec' };
  const observed = observedEnvelopeSchema.safeParse(body);
  if (observed.success) {
    const ts = observed.data.timestamp;
    const createdAt = typeof ts === 'number' ? epochToIso(ts) : ts;
    return { event: observed.data.event, createdAt, data: observed.data.payload ?? {}, shape: 'observed' };
  }
  return undefined;
}

/**
 * The observed envelope's numeric `timestamp`, in seconds or milliseconds (its unit is not
 * documented): below 1e11 it is seconds (1e11 ms is 1973, 1e11 s the year 5138). A value no date
 * can hold is kept as its digits rather than refusing a correctly signed delivery.
 */
function epochToIso(ts: number): string {
  const ms = Math.abs(ts) < 1e11 ? ts * 1000 : ts;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? String(ts) : date.toISOString();
}
