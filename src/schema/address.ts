/**
 * Address rules without zod: the quick email check (email-quick.ts) runs them on every batch entry
 * and must not load zod; common.ts builds the zod fields from the same functions.
 */
// No spaces or control characters anywhere (an address goes in a header; the set of text.ts).
// eslint-disable-next-line no-control-regex
const ADDRESS = /^[^\s@<>"(),;:\u0000-\u001f\u007f-\u009f\u2028\u2029]+@[^\s@<>"(),;:\u0000-\u001f\u007f-\u009f\u2028\u2029]+\.[^\s@<>"(),;:.\u0000-\u001f\u007f-\u009f\u2028\u2029][^\s@<>"(),;:\u0000-\u001f\u007f-\u009f\u2028\u2029]*$/;

export function isEmailAddress(value: string): boolean {
  return value.length <= 320 && ADDRESS.test(value);
}

/** `from` may be a bare address or `Name <address>` (as the real service accepts); returns the address part. */
export function senderAddress(value: string): string | undefined {
  const trimmed = value.trim();
  const named = /^(.*?)\s*<([^<>]+)>$/.exec(trimmed);
  const address = named ? named[2]!.trim() : trimmed;
  return isEmailAddress(address) ? address : undefined;
}
