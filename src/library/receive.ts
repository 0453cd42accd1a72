import { verify } from '../webhook/signature.js';
import type { WebhookEvent, WebhookHandlerOptions, WebhookRequest } from '../types.js';
import { ValidationError, WebhookSignatureError } from './public-errors.js';

/**
 * True when `signature` (the X-Smashsend-Signature value) is the HMAC-SHA256 of the exact body
 * bytes keyed with the webhook's token; compared in constant time. A missing header is false.
 */
export function verifySignature(body: string | Uint8Array, signature: string | null | undefined, token: string): boolean {
  if (typeof token !== 'string' || token === '') throw new ValidationError('verifySignature: the webhook signing token is empty');
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) throw new ValidationError(`verifySignature: the body must be the raw bytes (a string or a Buffer), got ${describe(body)}`);
  if (typeof signature !== 'string') return false;
  return verify(token, body, signature);
}

/**
 * A receiver for webhook deliveries that works with any framework: hand it the raw body and the
 * headers, get the verified event, or a WebhookSignatureError to answer with its statusCode.
 * Mismatches are explained (a re-serialised body, an added newline, a wrong token) as
 * `mailroom webhooks verify` explains them.
 */
export function createWebhookHandler(options: WebhookHandlerOptions): (request: WebhookRequest) => Promise<WebhookEvent> {
  if (typeof options !== 'object' || options === null) throw new ValidationError(`createWebhookHandler: give the options as { token, maxAgeMs }, got ${describe(options)}`);
  const { token, maxAgeMs, now } = options;
  if (typeof token !== 'string' || token === '') throw new ValidationError('createWebhookHandler: the webhook signing token is empty');
  if (maxAgeMs !== undefined && !(Number.isFinite(maxAgeMs) && maxAgeMs > 0)) throw new ValidationError('createWebhookHandler: maxAgeMs must be a positive number');
  if (now !== undefined && typeof now !== 'function') throw new ValidationError('createWebhookHandler: now must be a function returning a Date');
  return async (request) => {
    if (typeof request !== 'object' || request === null) throw new ValidationError(`webhook handler: give the request as { body, headers }, got ${describe(request)}`);
    const [{ diagnose }, { findSignatureHeader }, { readEvent }] = await Promise.all([import('../webhook/explain.js'), import('../webhook/signature.js'), import('./event.js')]);
    const body = typeof request.body === 'string' ? Buffer.from(request.body) : request.body;
    if (!(body instanceof Uint8Array)) throw new ValidationError(`webhook handler: the body must be the raw bytes (a string or a Buffer), before any JSON parser; got ${describe(request.body)}`);
    const header = findSignatureHeader(plainHeaders(request.headers));
    const verdict = diagnose(token, body, header?.value);
    if (!verdict.ok) throw new WebhookSignatureError(verdict.reason, verdict.message);
    return readEvent(body, maxAgeMs, (now ?? (() => new Date()))());
  };
}

const describe = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : typeof v);

/**
 * The headers as lower-cased names to string values. Missing headers (null or undefined, as some
 * frameworks give for a request without any) are no headers: the delivery then has no signature,
 * which the handler answers as such. Values other than strings (or lists of them) are not headers
 * a server received, and are left out.
 */
function plainHeaders(headers: unknown): Record<string, string | string[] | undefined> {
  const out = new Map<string, string | string[]>();
  const add = (name: unknown, value: unknown) => {
    if (typeof name !== 'string') return;
    if (typeof value === 'string') out.set(name.toLowerCase(), value);
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) out.set(name.toLowerCase(), value as string[]);
  };
  if (headers === null || headers === undefined) return {};
  if (typeof headers !== 'object') throw new ValidationError(`webhook handler: headers must be a Headers object or an object of header names to values, got ${describe(headers)}`);
  const h = headers as Headers;
  if (typeof h.forEach === 'function' && typeof h.get === 'function') h.forEach((value, name) => add(name, value));
  else for (const [name, value] of Object.entries(headers)) add(name, value);
  return Object.fromEntries(out);
}
