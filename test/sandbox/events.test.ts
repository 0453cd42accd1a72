import { describe, expect, test } from 'vitest';
import { recordRecipient } from '../../src/sandbox/contacts.js';
import { triggerEvent } from '../../src/sandbox/events.js';
import { maskSecret } from '../../src/sandbox/keys.js';
import { SandboxState } from '../../src/sandbox/state.js';

const NOW = '2026-01-01T00:00:00.000Z';

describe('contacts from sends', () => {
  test('a new recipient is created; changed properties update it; the same properties change nothing', () => {
    const state = SandboxState.fresh(undefined);
    expect(recordRecipient(state, 'Ada@X.test', { firstName: 'Ada' }, NOW)?.kind).toBe('CONTACT_CREATED');
    expect(recordRecipient(state, 'ada@x.test', undefined, NOW)).toBeUndefined();
    expect(recordRecipient(state, 'ada@x.test', { firstName: 'Ada' }, NOW)).toBeUndefined();
    const updated = recordRecipient(state, 'ada@x.test', { lastName: 'Lovelace' }, NOW);
    expect(updated?.kind).toBe('CONTACT_UPDATED');
    expect(updated?.contact.properties).toEqual({ status: 'SUBSCRIBED', firstName: 'Ada', lastName: 'Lovelace' });
    expect(state.contacts.size).toBe(1);
  });
});

describe('triggerEvent', () => {
  test('contact events change the stored contact; CONTACT_DELETED removes it', () => {
    const state = SandboxState.fresh(undefined);
    const created = triggerEvent(state, 'CONTACT_CREATED', 'bo@x.test', NOW);
    const id = (created.data.contact as { id: string }).id;
    expect(id).toMatch(/^ctc_/);
    triggerEvent(state, 'CONTACT_UNSUBSCRIBED', 'bo@x.test', NOW);
    expect(state.contacts.get('bo@x.test')?.properties.status).toBe('UNSUBSCRIBED');
    const deleted = triggerEvent(state, 'CONTACT_DELETED', 'bo@x.test', NOW);
    expect((deleted.data.contact as { id: string }).id).toBe(id);
    expect(state.contacts.has('bo@x.test')).toBe(false);
  });

  test('without an address a sample contact is used and nothing is stored', () => {
    const state = SandboxState.fresh(undefined);
    const env = triggerEvent(state, 'CONTACT_UNSUBSCRIBED', undefined, NOW);
    expect(env).toMatchObject({ event: 'CONTACT_UNSUBSCRIBED', createdAt: NOW, data: { contact: { properties: { status: 'UNSUBSCRIBED' }, workspaceId: state.workspace.id } } });
    expect(state.contacts.size).toBe(0);
  });

  test('a team member joined names the member from the address', () => {
    const state = SandboxState.fresh(undefined);
    const env = triggerEvent(state, 'WORKSPACE_TEAM_MEMBER_JOINED', 'linus.t@x.test', NOW);
    expect(env.data).toEqual({ workspace: state.workspace, user: { id: expect.stringMatching(/^usr_/), email: 'linus.t@x.test', name: 'Linus T' } });
  });
});

describe('maskSecret', () => {
  test('keeps the prefix and the last four characters', () => {
    expect(maskSecret('sk_live_abcdefghijklmnop1234')).toBe('sk_live_…1234');
    expect(maskSecret('custom-key-9876')).toBe('…9876');
  });
});
