/**
 * The one list of settings a user can name (`config get|set|unset`, help, completion): each is
 * stored in a profile, except `profile`, which chooses the profile (--profile, MAILROOM_PROFILE)
 * and is only shown.
 */
export const ALL_KEYS = ['api-key', 'base-url', 'workspace', 'profile', 'timeout', 'max-retries', 'secure-storage'] as const;
export type Key = (typeof ALL_KEYS)[number];
export type StoredKey = Exclude<Key, 'profile'>;
export const STORED_KEYS = ALL_KEYS.filter((k): k is StoredKey => k !== 'profile');
