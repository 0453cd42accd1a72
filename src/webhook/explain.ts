import { createHmac } from 'node:crypto';
import { verify, verifyDigest } from './signature.js';

/**
 * Why a signature does or does not match: shared by `webhooks listen` (the 401 body and the printed
 * line) and `webhooks verify` (the explanation under the error). A bare "mismatch" leaves a developer
 * guessing; most real mismatches come from a body changed in transit in a way we can recognise.
 */
export type Verdict =
  | { ok: true }
  | { ok: false; reason: 'missing' | 'malformed' | 'mismatch'; cause?: MismatchCause; message: string };

export type MismatchCause = 'reserialised' | 'trailing-whitespace-added' | 'trailing-newline-removed' | 'line-endings' | 'token-whitespace' | 'token-or-body';

const HEX64 = /^[0-9a-f]{64}$/i;

export function diagnose(token: string, body: Uint8Array, signature: string | undefined): Verdict {
  if (signature === undefined || signature.trim() === '') {
    return { ok: false, reason: 'missing', message: 'no signature header: expected X-Smashsend-Signature (or any X-*-Signature)' };
  }
  const malformed = malformedReason(signature);
  if (malformed) return { ok: false, reason: 'malformed', message: `malformed signature: ${malformed}` };
  if (verify(token, body, signature)) return { ok: true };
  const cause = mismatchCause(token, Buffer.from(body), signature);
  return { ok: false, reason: 'mismatch', cause: cause.cause, message: `signature does not match: ${cause.message}` };
}

function malformedReason(signature: string): string | undefined {
  const value = signature.trim().replace(/^sha256=/i, '');
  if (HEX64.test(value)) return undefined;
  if (/^[0-9a-f]{40}$/i.test(value)) return 'it is 40 hex digits, the length of SHA-1; the service signs with HMAC-SHA256 (64 hex digits)';
  if (/^[0-9a-f]+$/i.test(value)) return `expected 64 hex digits (HMAC-SHA256), got ${value.length}`;
  if (/^[A-Za-z0-9+/]{43}=$/.test(value)) return 'it looks like base64; the service sends lowercase hex (64 digits)';
  return 'expected 64 hex digits (HMAC-SHA256 of the raw body)';
}

/**
 * Bodies up to this size are explained fully; larger ones get the checks that need no copy of the
 * body (a few HMACs over it), so a flood of large forged posts costs little CPU and no memory.
 */
export const FULL_EXPLANATION_LIMIT = 64 * 1024;

function mismatchCause(token: string, body: Buffer, signature: string): { cause: MismatchCause; message: string } {
  const matches = (...parts: Array<string | Uint8Array>) => {
    const hmac = createHmac('sha256', token);
    for (const part of parts) hmac.update(part);
    return verifyDigest(hmac.digest('hex'), signature);
  };
  const trimmedToken = token.trim();
  if (trimmedToken !== token && verify(trimmedToken, body, signature)) {
    return { cause: 'token-whitespace', message: 'the token has surrounding whitespace (a newline from a file?); it verifies once trimmed' };
  }
  let end = body.length;
  while (end > 0 && WHITESPACE.has(body[end - 1]!)) end--;
  if (end < body.length && matches(body.subarray(0, end))) {
    return { cause: 'trailing-whitespace-added', message: 'a trailing newline or whitespace was added to the body after it was signed (an editor, echo or a file save?)' };
  }
  if (matches(body, '\n')) return { cause: 'trailing-newline-removed', message: 'the body lost its trailing newline after it was signed' };
  if (body.length > FULL_EXPLANATION_LIMIT) {
    return { cause: 'token-or-body', message: `wrong token, or the body changed after it was signed (a body over ${FULL_EXPLANATION_LIMIT / 1024} KiB gets the quick checks only)` };
  }
  const text = body.toString('utf8');
  if (text.includes('\r\n') ? matches(text.replace(/\r\n/g, '\n')) : text.includes('\n') && matches(text.replace(/\n/g, '\r\n'))) {
    return { cause: 'line-endings', message: 'the line endings of the body were changed (CRLF/LF) after it was signed' };
  }
  if (reserialisedForms(text).some((form) => matches(form))) {
    return {
      cause: 'reserialised',
      message: 'the body was re-serialised (parsed and written out again as JSON, e.g. by a proxy or a JSON body parser); verify the raw bytes as received',
    };
  }
  return { cause: 'token-or-body', message: 'wrong token, or the body changed after it was signed' };
}

/** What `/\s+$/` strips, as bytes: ASCII whitespace (the endings editors and shells add). */
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d, 0x0b, 0x0c]);

/** The body as common JSON writers would re-emit it: compact, and pretty with the usual indents. */
function reserialisedForms(text: string): string[] {
  let forms: Set<string>;
  try {
    const value: unknown = JSON.parse(text);
    forms = new Set([JSON.stringify(value), JSON.stringify(value, null, 2), JSON.stringify(value, null, 4), JSON.stringify(value, null, '\t')]);
  } catch {
    // Not JSON, or nested too deeply for JSON.stringify (RangeError): no re-serialisation to compare.
    return [];
  }
  for (const form of [...forms]) forms.add(`${form}\n`);
  forms.delete(text);
  return [...forms];
}
