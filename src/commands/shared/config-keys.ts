/** Settings a user can name; only the first three are stored in a profile. */
export const STORED_KEYS = ['api-key', 'base-url', 'workspace'] as const;
export const ALL_KEYS = [...STORED_KEYS, 'profile', 'timeout', 'max-retries'] as const;
export type StoredKey = (typeof STORED_KEYS)[number];
export type Key = (typeof ALL_KEYS)[number];

