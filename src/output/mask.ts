/**
 * `sk_live_1234abcd…` → `sk_live_…abcd`: the type prefix and last four characters, enough to tell
 * keys apart, never enough to use one. Short values are hidden entirely.
 */
export function mask(secret: string): string {
  const prefix = /^(sk_(?:live|test)_|wht_|[a-z]{2,5}_)/.exec(secret)?.[1] ?? '';
  const rest = secret.slice(prefix.length);
  if (rest.length < 12) return `${prefix}…`;
  return `${prefix}…${rest.slice(-4)}`;
}
