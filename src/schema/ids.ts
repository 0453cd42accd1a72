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

const NOUN: Record<IdKind, string> = {
  email: 'email id',
  apiKey: 'API key id',
  webhook: 'webhook id',
  webhookToken: 'webhook token',
  contact: 'contact id',
  workspace: 'workspace id',
  user: 'user id',
  secretKey: 'secret key',
};

/** Why `value` is not an id of `kind` (its prefix, then letters, digits, _ or -), or undefined when it is one. */
export function idProblem(kind: IdKind, value: unknown): string | undefined {
  if (typeof value === 'string' && hasPrefix(kind, value)) return undefined;
  const shown = typeof value === 'string' ? `"${value}"` : value === null ? 'null' : `a ${typeof value}`;
  const noun = NOUN[kind];
  return `${shown} is not ${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}: expected ${ID_PREFIX[kind]}...`;
}
