/**
 * `sk_live_1234abcd…` → `sk_live_…abcd`: the type prefix and last four characters, enough to tell
 * keys apart, never enough to use one. Short values are hidden entirely.
 */
export function mask(secret: string): string {
  // Already masked (servers mask list answers the same way): keep the tail it shows.
  if (secret.includes('…')) return secret;
  const prefix = /^(sk_(?:live|test)_|wht_|[a-z]{2,5}_)/.exec(secret)?.[1] ?? '';
  const rest = secret.slice(prefix.length);
  if (rest.length < 12) return `${prefix}…`;
  return `${prefix}…${rest.slice(-4)}`;
}

const SECRET_FIELDS = new Set(['secretKey', 'token', 'apiKey']);

/** A copy of an API object with every secret field (`secretKey`, `token`, `apiKey`) masked, at any depth. */
export function maskSecrets<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v)) as T;
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_FIELDS.has(k) && typeof v === 'string' ? mask(v) : maskSecrets(v);
  return out as T;
}
