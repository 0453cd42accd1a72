import * as z from 'zod';
import { headerText, isoTimestamp, tolerantEnum, unset } from './common.js';

export const KEY_ROLES = ['API_USER', 'EDITOR', 'VIEWER'] as const;
export const KEY_STATUSES = ['ACTIVE', 'ARCHIVED'] as const;
export const KEY_CHECK_STATUSES = ['SUCCEED'] as const;

export const apiKeySchema = z.looseObject({
  id: z.string(),
  displayName: z.string(),
  role: tolerantEnum(KEY_ROLES),
  status: tolerantEnum(KEY_STATUSES),
  secretKey: unset(z.string()),
  createdAt: unset(z.string()),
  updatedAt: unset(z.string()),
});
export type ApiKey = z.infer<typeof apiKeySchema>;

/** A 200 is what says the key is valid (public API docs); the fields only describe it. */
export const keyCheckResultSchema = z.looseObject({
  status: unset(tolerantEnum(KEY_CHECK_STATUSES)),
  displayName: unset(z.string()),
  role: unset(tolerantEnum(KEY_ROLES)),
});
export type KeyCheckResult = z.infer<typeof keyCheckResultSchema>;

export const createKeyRequestSchema = z.strictObject({
  displayName: headerText.trim().min(1).max(200),
  role: z.enum(KEY_ROLES),
});
export type CreateKeyRequest = z.infer<typeof createKeyRequestSchema>;

export const updateKeyRequestSchema = z
  .strictObject({
    displayName: headerText.trim().min(1).max(200).optional(),
    role: z.enum(KEY_ROLES).optional(),
  })
  .refine((r) => r.displayName !== undefined || r.role !== undefined, { message: 'give displayName or role' });
export type UpdateKeyRequest = z.infer<typeof updateKeyRequestSchema>;

export const keyListResponseSchema = z.looseObject({
  apiKeys: z.looseObject({
    items: z.array(apiKeySchema),
    hasMore: unset(z.boolean()),
    startAt: isoTimestamp.nullable().or(z.string().nullable()).optional(),
  }),
});
export const keyResponseSchema = z.looseObject({ apiKey: apiKeySchema });
export const keyDeleteResponseSchema = z.looseObject({ apiKey: apiKeySchema, isDeleted: z.literal(true) });

export const KEY_LIST_DEFAULT_LIMIT = 15;
export const KEY_LIST_MAX_LIMIT = 100;
export const KEY_LIST_SORTS = ['createdAt.desc', 'createdAt.asc'] as const;
