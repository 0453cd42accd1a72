/** Identifier prefixes of the public API (smashsend.com/docs/api). */
export const ID_PREFIX = {
  email: 'trs_',
  apiKey: 'aki_',
  webhook: 'wh_',
  webhookToken: 'wht_',
  contact: 'ctc_',
  workspace: 'wrk_',
  user: 'usr_',
  secretKey: 'sk_live_',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const ID_BODY = /^[A-Za-z0-9_-]+$/;

/** True when `value` is the prefix followed by a non-empty id body. */
export function hasPrefix(kind: IdKind, value: string): boolean {
  const prefix = ID_PREFIX[kind];
  return value.startsWith(prefix) && value.length > prefix.length && ID_BODY.test(value.slice(prefix.length));
}
