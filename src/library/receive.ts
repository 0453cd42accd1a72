import { verify } from '../webhook/signature.js';
import type { WebhookEvent, WebhookHandlerOptions, WebhookRequest } from '../types.js';
import { ValidationError, WebhookSignatureError } from './errors.js';

/**
 * True when `signature` (the X-Smashsend-Signature value) is the HMAC-SHA256 of the exact body
 * bytes keyed with the webhook's token; compared in constant time. A missing header is false.
 */
export function verifySignature(body: string | Uint8Array, signature: string | null | undefined, token: string): boolean {
  if (typeof token !== 'string' || token === '') throw new ValidationError('verifySignature: the webhook signing token is empty');
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
  const { token, maxAgeMs } = options;
  if (typeof token !== 'string' || token === '') throw new ValidationError('createWebhookHandler: the webhook signing token is empty');
  if (maxAgeMs !== undefined && !(Number.isFinite(maxAgeMs) && maxAgeMs > 0)) throw new ValidationError('createWebhookHandler: maxAgeMs must be a positive number');
  return async (request) => {
    const [{ diagnose }, { findSignatureHeader }, { readEvent }] = await Promise.all([import('../webhook/explain.js'), import('../webhook/signature.js'), import('./event.js')]);
    const body = typeof request.body === 'string' ? Buffer.from(request.body) : request.body;
    if (!(body instanceof Uint8Array)) throw new ValidationError('webhook handler: the body must be the raw bytes (a string or a Buffer), before any JSON parser');
    const header = findSignatureHeader(plainHeaders(request.headers));
    const verdict = diagnose(token, body, header?.value);
    if (!verdict.ok) throw new WebhookSignatureError(verdict.reason, verdict.message);
    return readEvent(body, maxAgeMs, (options.now ?? (() => new Date()))());
  };
}

function plainHeaders(headers: WebhookRequest['headers']): Record<string, string | string[] | undefined> {
  if (typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function') {
    const out: Record<string, string> = {};
    (headers as Headers).forEach((value, name) => {
      out[name.toLowerCase()] = value;
    });
    return out;
  }
  const out: Record<string, string | string[] | undefined> = {};
  for (const [name, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) out[name.toLowerCase()] = value;
  return out;
}
