import type { EventName } from '../schema/index.js';
import { contactPayload, envelope, sampleContact, teamMemberPayload, type Envelope } from '../webhook/samples.js';
import { findOrCreateContact } from './contacts.js';
import type { SandboxState } from './state.js';

export { contactPayload, envelope, type Envelope };

/**
 * `POST /_sandbox/events`: makes the event happen. With an address, the contact store changes as
 * the event says (unsubscribed, deleted...); without one, a sample contact that is not stored.
 */
export function triggerEvent(state: SandboxState, event: EventName, email: string | undefined, now: string): Envelope {
  if (event === 'WORKSPACE_TEAM_MEMBER_JOINED') return envelope(event, teamMemberPayload(state.workspace, email), now);
  const contact = email ? findOrCreateContact(state, email, now) : sampleContact(now);
  if (event === 'CONTACT_UNSUBSCRIBED') contact.properties = { ...contact.properties, status: 'UNSUBSCRIBED' };
  if (event === 'CONTACT_RESUBSCRIBED') contact.properties = { ...contact.properties, status: 'SUBSCRIBED' };
  if (email && event !== 'CONTACT_CREATED') contact.updatedAt = now;
  if (email && event === 'CONTACT_DELETED') state.deleteContact(contact);
  else if (email && event !== 'CONTACT_CREATED') state.saveContact(contact);
  return envelope(event, contactPayload(contact, state.workspace.id), now);
}
