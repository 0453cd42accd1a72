import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import {
  emailResultSchema,
  keyCheckResultSchema,
  keyListResponseSchema,
  keyResponseSchema,
  sendEmailResponseSchema,
  webhookListResponseSchema,
  webhookResponseSchema,
} from '../../src/schema/index.js';

// Answers as the service sends them, fully populated; `optional` names what a reader must not require.
const key = { id: 'key_1', displayName: 'CI', role: 'API_USER', status: 'ACTIVE', secretKey: 'sk_live_x', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-02T00:00:00Z' };
const hook = { id: 'wh_1', url: 'https://x.test/h', events: ['CONTACT_CREATED'], token: 'wht_x', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-02T00:00:00Z', displayName: 'd', status: 'ACTIVE', workspaceId: 'ws_1' };
const email = { id: 'em_1', messageId: 'm_1', status: 'SENT', to: 'a@example.com', type: 'raw', from: 'b@example.com', subject: 's', template: 't', groupBy: 'g', warning: 'w' };

interface Case {
  name: string;
  schema: z.ZodType;
  wrap: (item: Record<string, unknown>) => unknown;
  item: Record<string, unknown>;
  optional: string[];
}
const cases: Case[] = [
  { name: 'api key', schema: keyResponseSchema, wrap: (apiKey) => ({ apiKey }), item: key, optional: ['secretKey', 'createdAt', 'updatedAt'] },
  { name: 'api key list item', schema: keyListResponseSchema, wrap: (k) => ({ apiKeys: { items: [k], hasMore: false, startAt: null } }), item: key, optional: ['secretKey', 'createdAt', 'updatedAt'] },
  { name: 'api key list page', schema: keyListResponseSchema, wrap: (page) => ({ apiKeys: page }), item: { items: [key], hasMore: false, startAt: null }, optional: ['hasMore', 'startAt'] },
  { name: 'webhook', schema: webhookResponseSchema, wrap: (webhook) => ({ webhook }), item: hook, optional: ['token', 'createdAt', 'updatedAt', 'displayName', 'status', 'workspaceId'] },
  { name: 'webhook list item', schema: webhookListResponseSchema, wrap: (w) => ({ webhooks: { items: [w], hasMore: false } }), item: hook, optional: ['token', 'createdAt', 'updatedAt', 'displayName', 'status', 'workspaceId'] },
  { name: 'webhook list page', schema: webhookListResponseSchema, wrap: (page) => ({ webhooks: page }), item: { items: [hook], hasMore: false }, optional: ['hasMore'] },
  { name: 'email', schema: sendEmailResponseSchema, wrap: (e) => ({ email: e }), item: email, optional: ['messageId', 'type', 'from', 'subject', 'template', 'groupBy', 'warning'] },
  { name: 'key check', schema: keyCheckResultSchema, wrap: (c) => c, item: { status: 'SUCCEED', displayName: 'CI', role: 'API_USER' }, optional: ['status', 'displayName', 'role'] },
];

describe('answer schemas tolerate a missing optional field', () => {
  const rows = cases.flatMap((c) => c.optional.map((field) => [c.name, field, c] as const));
  test.each(rows)('%s without %s is read', (_name, field, c) => {
    const { [field]: _dropped, ...rest } = c.item;
    const parsed = c.schema.safeParse(c.wrap(rest));
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    const nulled = c.schema.safeParse(c.wrap({ ...c.item, [field]: null }));
    expect(nulled.success, `${field}: null`).toBe(true);
  });

  test('what identifies a resource stays required', () => {
    const { id: _k, ...keyNoId } = key;
    expect(keyResponseSchema.safeParse({ apiKey: keyNoId }).success).toBe(false);
    const { url: _u, ...hookNoUrl } = hook;
    expect(webhookResponseSchema.safeParse({ webhook: hookNoUrl }).success).toBe(false);
    const { id: _i, messageId: _m, ...emailNoId } = email;
    expect(emailResultSchema.safeParse(emailNoId).success).toBe(false);
  });
});
