import type { EventName } from '../schema/index.js';
import { findOrCreateContact } from './contacts.js';
import { newId, type Contact, type SandboxState, type Scalar, type Workspace } from './state.js';

/** api-v1.md's envelope, the shape every sandbox delivery carries. */
export interface Envelope {
  event: EventName;
  createdAt: string;
  data: Record<string, unknown>;
}

const SAMPLE_CONTACT = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada.lovelace@example.com' };
const SAMPLE_MEMBER = { name: 'Grace Hopper', email: 'grace.hopper@example.com' };

function asString(value: Scalar | undefined): string {
  return value === undefined || value === null ? '' : String(value);
}

/** `data.contact` as api-v1.md shows it (all three named properties are strings), plus status. */
export function contactPayload(contact: Contact, workspaceId: string): Record<string, unknown> {
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

function nameFromAddress(email: string): string {
  const local = email.split('@')[0] ?? email;
  return local
    .split(/[._+-]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');
}

export function teamMemberPayload(workspace: Workspace, email: string | undefined): Record<string, unknown> {
  const member = email ? { email, name: nameFromAddress(email) || email } : SAMPLE_MEMBER;
  return { workspace: { id: workspace.id, name: workspace.name }, user: { id: newId('user'), email: member.email, name: member.name } };
}

export function envelope(event: EventName, data: Record<string, unknown>, now: string): Envelope {
  return { event, createdAt: now, data };
}

/**
 * `POST /_sandbox/events`: makes the event happen. With an address, the contact store changes as
 * the event says (unsubscribed, deleted...); without one, a sample contact that is not stored.
 */
export function triggerEvent(state: SandboxState, event: EventName, email: string | undefined, now: string): Envelope {
  if (event === 'WORKSPACE_TEAM_MEMBER_JOINED') return envelope(event, teamMemberPayload(state.workspace, email), now);
  const contact = email ? findOrCreateContact(state, email, now) : sampleContact(now);
  if (email) {
    if (event === 'CONTACT_UNSUBSCRIBED') contact.properties = { ...contact.properties, status: 'UNSUBSCRIBED' };
    if (event === 'CONTACT_RESUBSCRIBED') contact.properties = { ...contact.properties, status: 'SUBSCRIBED' };
    if (event !== 'CONTACT_CREATED') contact.updatedAt = now;
    if (event === 'CONTACT_DELETED') state.contacts.delete(contact.email.toLowerCase());
  } else if (event === 'CONTACT_UNSUBSCRIBED') {
    contact.properties.status = 'UNSUBSCRIBED';
  }
  return envelope(event, contactPayload(contact, state.workspace.id), now);
}

function sampleContact(now: string): Contact {
  return { id: newId('contact'), email: SAMPLE_CONTACT.email, properties: { ...SAMPLE_CONTACT, status: 'SUBSCRIBED' }, createdAt: now, updatedAt: now };
}
