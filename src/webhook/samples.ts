import { randomBytes } from 'node:crypto';
import { ID_PREFIX, type EventName } from '../schema/index.js';

/**
 * Realistic event payloads in the public API's event envelope (smashsend.com/docs/api): one builder shared by `webhooks sample` and the
 * sandbox's deliveries, so what a receiver is unit-tested with is what the sandbox sends.
 */
export interface Envelope {
  event: EventName;
  createdAt: string;
  data: Record<string, unknown>;
}

type Scalar = string | number | boolean | null;

/** A contact as the sandbox stores it; the payload builder needs only these fields. */
export interface ContactRecord {
  id: string;
  email: string;
  properties: Record<string, Scalar>;
  createdAt: string;
  updatedAt: string;
}

export interface WorkspaceRecord {
  id: string;
  name: string;
}

const SAMPLE_CONTACT = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada.lovelace@example.com' } as const;
const SAMPLE_MEMBER = { name: 'Grace Hopper', email: 'grace.hopper@example.com' } as const;
const SAMPLE_WORKSPACE: WorkspaceRecord = { id: 'wrk_sample0workspace01', name: 'Acme' };

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A prefixed random id shaped like the service's (`ctc_…`, `usr_…`). */
function sampleId(kind: 'contact' | 'user' | 'workspace'): string {
  const bytes = randomBytes(20);
  let body = '';
  for (const b of bytes) body += ALPHABET[b % 62];
  return `${ID_PREFIX[kind]}${body}`;
}

function asString(value: Scalar | undefined): string {
  return value === undefined || value === null ? '' : String(value);
}

/** "ada.lovelace@x" → "Ada Lovelace": a believable display name for an address. */
function nameFromAddress(email: string): string {
  const local = email.split('@')[0] ?? email;
  return local
    .split(/[._+-]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');
}

/** `data.contact` as the public API docs show it (the three named properties are strings), plus status. */
export function contactPayload(contact: ContactRecord, workspaceId: string): Record<string, unknown> {
  const p = contact.properties;
  return {
    contact: {
      id: contact.id,
      email: contact.email,
      properties: {
        ...p,
        firstName: asString(p.firstName),
        lastName: asString(p.lastName),
        email: contact.email,
        status: asString(p.status) || 'SUBSCRIBED',
      },
      createdAt: contact.createdAt,
      updatedAt: contact.updatedAt,
      workspaceId,
    },
  };
}

export function teamMemberPayload(workspace: WorkspaceRecord, email: string | undefined): Record<string, unknown> {
  const member = email ? { email, name: nameFromAddress(email) || email } : SAMPLE_MEMBER;
  return { workspace: { id: workspace.id, name: workspace.name }, user: { id: sampleId('user'), email: member.email, name: member.name } };
}

export function envelope(event: EventName, data: Record<string, unknown>, now: string): Envelope {
  return { event, createdAt: now, data };
}

/** A contact that exists only in a sample; names come from the address when one is given. */
export function sampleContact(now: string, email?: string): ContactRecord {
  if (!email) return { id: sampleId('contact'), email: SAMPLE_CONTACT.email, properties: { ...SAMPLE_CONTACT, status: 'SUBSCRIBED' }, createdAt: now, updatedAt: now };
  const [firstName = '', ...rest] = nameFromAddress(email).split(' ');
  return { id: sampleId('contact'), email, properties: { firstName, lastName: rest.join(' '), email, status: 'SUBSCRIBED' }, createdAt: now, updatedAt: now };
}

/**
 * A realistic delivery for any of the six events, as if it had just happened: the contact was
 * created a day earlier for the events that change an existing contact.
 */
export function sampleEnvelope(event: EventName, options: { email?: string; now?: Date; workspace?: WorkspaceRecord } = {}): Envelope {
  const now = options.now ?? new Date();
  const at = now.toISOString();
  const workspace = options.workspace ?? SAMPLE_WORKSPACE;
  if (event === 'WORKSPACE_TEAM_MEMBER_JOINED') return envelope(event, teamMemberPayload(workspace, options.email), at);
  const contact = sampleContact(at, options.email);
  if (event !== 'CONTACT_CREATED') contact.createdAt = new Date(now.getTime() - 86_400_000).toISOString();
  if (event === 'CONTACT_UNSUBSCRIBED') contact.properties.status = 'UNSUBSCRIBED';
  return envelope(event, contactPayload(contact, workspace.id), at);
}

/** The exact bytes a delivery carries (and that are signed): compact JSON, as the sandbox sends. */
export function serializeEnvelope(env: Envelope): string {
  return JSON.stringify(env);
}
