import { describe, expect, it } from 'vitest';
import {
  apiKeySchema,
  batchResponseSchema,
  describeIssues,
  emailResultSchema,
  hasPrefix,
  normalizeEnvelope,
  parseEmailRequest,
  senderAddress,
  webhookListResponseSchema,
  createWebhookRequestSchema,
  keyCheckResultSchema,
} from '../../src/schema/index.js';

describe('email requests', () => {
  it('accepts a raw email with every documented field', () => {
    const r = parseEmailRequest({
      from: 'Acme <hello@example.com>', fromName: 'Acme', to: 'a@b.co', subject: 'Hi', html: '<p>x</p>', text: 'x',
      previewText: 'p', replyTo: 'r@example.com', contactProperties: { plan: 'pro', seats: 3 },
      settings: { trackClicks: false, trackOpens: true }, groupBy: 'g', sendAt: '2030-01-01T00:00:00Z', idempotencyKey: 'k1',
    });
    expect(r.ok && r.kind).toBe('raw');
  });

  it('accepts a templated email and routes by the template field', () => {
    const r = parseEmailRequest({ template: 'welcome', to: 'a@b.co', variables: { name: 'Ann' } });
    expect(r.ok && r.kind).toBe('templated');
  });

  it('names missing fields, unknown fields and bad addresses', () => {
    const r = parseEmailRequest({ from: 'nope', to: 'a@b.co', html: '<p/>', colour: 'red' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const text = describeIssues(r.issues);
    expect(text).toContain('subject is required');
    expect(text).toContain('unknown field colour');
    expect(text).toContain('from must be an email address');
  });

  it('rejects a non-ISO sendAt and wrong types', () => {
    const r = parseEmailRequest({ template: 't', to: 'a@b.co', sendAt: 'tomorrow', settings: { trackOpens: 'yes' } });
    expect(r.ok).toBe(false);
  });

  it('reads the address inside "Name <address>"', () => {
    expect(senderAddress('Acme Ops <ops@acme.test>')).toBe('ops@acme.test');
    expect(senderAddress('ops@acme.test')).toBe('ops@acme.test');
    expect(senderAddress('Acme <not-an-address>')).toBeUndefined();
  });
});

describe('responses are read tolerantly', () => {
  it('accepts unknown status values and extra fields', () => {
    expect(emailResultSchema.safeParse({ id: 'trs_1', messageId: 'm', status: 'QUEUED_SOMEWHERE', to: 'a@b.co', warning: 'w', extra: 1 }).success).toBe(true);
    expect(apiKeySchema.safeParse({ id: 'aki_1', displayName: 'x', role: 'OWNER', status: 'SUSPENDED', createdAt: 't', updatedAt: 't' }).success).toBe(true);
  });

  it('needs id or messageId on an email result', () => {
    expect(emailResultSchema.safeParse({ status: 'SENT', to: 'a@b.co' }).success).toBe(false);
  });

  it('reads both webhook list shapes', () => {
    const item = { id: 'wh_1', url: 'http://x', events: ['CONTACT_CREATED'], createdAt: 't' };
    const paged = webhookListResponseSchema.parse({ webhooks: { items: [item], hasMore: false } });
    const flat = webhookListResponseSchema.parse({ webhooks: [item] });
    expect(paged.webhooks.items).toHaveLength(1);
    expect(flat.webhooks.items).toHaveLength(1);
  });

  it('keeps failed batch entries of any shape', () => {
    const r = batchResponseSchema.parse({ emails: { successful: [], failed: ['weird', { index: 2 }] } });
    expect(r.emails.failed).toHaveLength(2);
  });

  it('normalizes both webhook envelope shapes', () => {
    expect(normalizeEnvelope({ event: 'CONTACT_CREATED', createdAt: 't', data: { contact: {} } })?.shape).toBe('spec');
    const observed = normalizeEnvelope({ event: 'CONTACT_CREATED', payload: { contact: { id: 'ctc_1' } }, timestamp: 0, version: 1 });
    expect(observed).toMatchObject({ shape: 'observed', createdAt: '1970-01-01T00:00:00.000Z', data: { contact: { id: 'ctc_1' } } });
    expect(normalizeEnvelope({ nope: true })).toBeUndefined();
  });

  it('reads the observed envelope\'s numeric timestamp in seconds or milliseconds, and keeps an impossible one', () => {
    const at = (timestamp: number) => normalizeEnvelope({ event: 'TESTING_CONNECTION', payload: {}, timestamp, version: 1 })?.createdAt;
    expect(at(1_795_000_000)).toBe('2026-11-18T11:06:40.000Z');
    expect(at(1_795_000_000_123)).toBe('2026-11-18T11:06:40.123Z');
    expect(at(1e300)).toBe('1e+300');
  });
});

describe('write-side requests are strict', () => {
  it('rejects unknown events and non-http urls', () => {
    expect(createWebhookRequestSchema.safeParse({ url: 'http://localhost:3000/hook', events: ['CONTACT_CREATED'] }).success).toBe(true);
    expect(createWebhookRequestSchema.safeParse({ url: 'http://x.test', events: ['CONTACT_EXPLODED'] }).success).toBe(false);
    expect(createWebhookRequestSchema.safeParse({ url: 'ftp://x.test', events: ['CONTACT_CREATED'] }).success).toBe(false);
  });

  it('checks id prefixes', () => {
    expect(hasPrefix('apiKey', 'aki_abc123')).toBe(true);
    expect(hasPrefix('apiKey', 'aki_')).toBe(false);
    expect(hasPrefix('webhook', 'aki_abc')).toBe(false);
  });
});

describe('drifted answers (the real service vs the documented API)', () => {
  it('reads null as an unset optional field on emails, keys, webhooks and the key check', () => {
    expect(emailResultSchema.safeParse({ id: 'trs_1', messageId: 'm', status: 'SENT', to: 'a@b.co', type: null, from: null, subject: null, template: null, groupBy: null, warning: null }).success).toBe(true);
    expect(emailResultSchema.safeParse({ id: null, messageId: 'm', status: 'SENT', to: 'a@b.co' }).success).toBe(true);
    expect(emailResultSchema.safeParse({ id: null, messageId: null, status: 'SENT', to: 'a@b.co' }).success).toBe(false);
    expect(apiKeySchema.safeParse({ id: 'aki_1', displayName: 'x', role: 'API_USER', status: 'ACTIVE', secretKey: null, createdAt: 't', updatedAt: 't' }).success).toBe(true);
    const hook = { id: 'wh_1', url: 'http://x', events: ['SOMETHING_NEW'], createdAt: 't', token: null, displayName: null, status: null, workspaceId: null, updatedAt: null };
    expect(webhookListResponseSchema.parse({ webhooks: [hook] }).webhooks.items).toEqual([hook]);
    expect(keyCheckResultSchema.safeParse({ status: 'SUCCEED', displayName: null }).success).toBe(true);
  });

  it('names the bad field of a webhook list in either shape, not "Invalid input"', () => {
    for (const webhooks of [[{ id: 'wh_1', url: 'http://x', events: null, createdAt: 't' }], { items: [{ id: 'wh_1', url: 'http://x', events: null, createdAt: 't' }] }]) {
      const r = webhookListResponseSchema.safeParse({ webhooks });
      expect(r.success).toBe(false);
      if (!r.success) expect(describeIssues(r.error.issues)).toBe('webhooks.items.0.events must be a list, not null');
    }
  });

  it('says "required" only for a missing field, not for one of the wrong type', () => {
    const r = emailResultSchema.safeParse({ id: 'trs_1', status: 'SENT', to: 5 });
    expect(!r.success && describeIssues(r.error.issues)).toBe('to must be a string, not a number');
    const missing = emailResultSchema.safeParse({ id: 'trs_1', status: 'SENT' });
    expect(!missing.success && describeIssues(missing.error.issues)).toBe('to is required');
    const notObject = webhookListResponseSchema.safeParse('not json');
    expect(!notObject.success && describeIssues(notObject.error.issues)).toBe('must be an object, not a string');
  });
});
