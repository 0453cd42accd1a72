import { newId, type Contact, type SandboxState, type Scalar } from './state.js';

export type ContactChange = { kind: 'CONTACT_CREATED' | 'CONTACT_UPDATED'; contact: Contact } | undefined;

function differs(current: Record<string, Scalar>, incoming: Record<string, Scalar>): boolean {
  return Object.keys(incoming).some((k) => !Object.hasOwn(current, k) || current[k] !== incoming[k]);
}

/** The contact a send to a new address makes (a restart rebuilds it with the same id, journal-lines.ts). */
export function createdContact(email: string, properties: Record<string, Scalar> | undefined, now: string, id: string): Contact {
  return { id, email, properties: { status: 'SUBSCRIBED', ...properties }, createdAt: now, updatedAt: now };
}

/**
 * A send to a new recipient creates a contact (with the id given, or a new one); new or changed
 * `contactProperties` on a known one update it. Returns what happened, the contact not yet saved: the caller saves it (with the email
 * that caused it, state.ts acceptEmail) and fires the matching event.
 */
export function recipientContact(state: SandboxState, email: string, properties: Record<string, Scalar> | undefined, now: string, id?: string): ContactChange {
  const key = email.toLowerCase();
  const known = state.contacts.get(key);
  if (!known) {
    return { kind: 'CONTACT_CREATED', contact: createdContact(email, properties, now, id ?? newId('contact')) };
  }
  if (properties && differs(known.properties, properties)) {
    known.properties = { ...known.properties, ...properties };
    known.updatedAt = now;
    return { kind: 'CONTACT_UPDATED', contact: known };
  }
  return undefined;
}

/** `recipientContact`, saved. */
export function recordRecipient(state: SandboxState, email: string, properties: Record<string, Scalar> | undefined, now: string): ContactChange {
  const change = recipientContact(state, email, properties, now);
  if (change) state.saveContact(change.contact);
  return change;
}

export function findOrCreateContact(state: SandboxState, email: string, now: string): Contact {
  return state.contacts.get(email.toLowerCase()) ?? (recordRecipient(state, email, undefined, now)!.contact);
}
