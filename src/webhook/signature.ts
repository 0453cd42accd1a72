import { createHmac, timingSafeEqual } from 'node:crypto';

/** Lowercase hex HMAC-SHA256 of the raw body keyed with the webhook token (docs/webhooks.md, "A receiver that verifies correctly"). */
export function sign(token: string, body: string | Uint8Array): string {
  return createHmac('sha256', token).update(body).digest('hex');
}

/**
 * Constant-time check of a received signature. Tolerates surrounding whitespace, upper-case hex and
 * a `sha256=` prefix some proxies add; anything that is not 64 hex digits is a mismatch.
 */
export function verify(token: string, body: string | Uint8Array, signature: string): boolean {
  return verifyDigest(sign(token, body), signature);
}

/** The constant-time comparison of verify(), for a digest the caller computed (over several parts). */
export function verifyDigest(expectedHex: string, signature: string): boolean {
  const received = signature.trim().replace(/^sha256=/i, '').toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(received)) return false;
  return timingSafeEqual(Buffer.from(expectedHex, 'hex'), Buffer.from(received, 'hex'));
}

export const SIGNATURE_HEADER = 'x-smashsend-signature';

/**
 * Picks the signature header from a request's headers: the service's own first, then any
 * `X-<name>-Signature` (as the real service sends it; docs/webhooks.md). Returns the header name too, for messages.
 */
export function findSignatureHeader(headers: Record<string, string | string[] | undefined>): { name: string; value: string } | undefined {
  const pick = (name: string) => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const own = pick(SIGNATURE_HEADER);
  if (own !== undefined) return { name: SIGNATURE_HEADER, value: own };
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (/^x-[a-z0-9-]+-signature$/.test(lower)) {
      const v = pick(name);
      if (v !== undefined) return { name: lower, value: v };
    }
  }
  return undefined;
}
