import { describe, expect, it } from 'vitest';
import { EVENT_NAMES, contactEventDataSchema, normalizeEnvelope, teamMemberJoinedDataSchema } from '../../src/schema/index.js';
import { sampleEnvelope, serializeEnvelope } from '../../src/webhook/samples.js';

describe('sample payloads', () => {
  it('builds every event in the spec envelope with the spec data shapes', () => {
    const now = new Date('2026-11-22T08:00:00.000Z');
    for (const event of EVENT_NAMES) {
      const env = sampleEnvelope(event, { now });
      expect(env.event).toBe(event);
      expect(env.createdAt).toBe('2026-11-22T08:00:00.000Z');
      const schema = event === 'WORKSPACE_TEAM_MEMBER_JOINED' ? teamMemberJoinedDataSchema : contactEventDataSchema;
      expect(schema.safeParse(env.data).success).toBe(true);
      expect(normalizeEnvelope(JSON.parse(serializeEnvelope(env)))?.shape).toBe('spec');
    }
  });

  it('uses realistic ids, names from the address, and the status the event implies', () => {
    const env = sampleEnvelope('CONTACT_UNSUBSCRIBED', { email: 'grace.hopper@navy.example' });
    const contact = (env.data as { contact: { id: string; email: string; properties: Record<string, string>; createdAt: string } }).contact;
    expect(contact.id).toMatch(/^ctc_[A-Za-z0-9]{20}$/);
    expect(contact.email).toBe('grace.hopper@navy.example');
    expect(contact.properties).toMatchObject({ firstName: 'Grace', lastName: 'Hopper', status: 'UNSUBSCRIBED' });
    expect(Date.parse(contact.createdAt)).toBeLessThan(Date.parse(env.createdAt));
    const joined = sampleEnvelope('WORKSPACE_TEAM_MEMBER_JOINED').data as { user: { id: string } };
    expect(joined.user.id).toMatch(/^usr_/);
  });
});
