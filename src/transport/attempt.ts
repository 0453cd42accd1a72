import type { Dispatcher } from 'undici';
import request from 'undici/lib/api/api-request.js';
import { AbortedError, ConnectionError, TimeoutError } from './errors.js';

export interface AttemptInput {
  dispatcher: Dispatcher;
  url: URL;
  method: 'GET' | 'POST' | 'DELETE';
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const CONNECTION_CODES = /^(E[A-Z]+|UND_ERR_(SOCKET|CLOSED|DESTROYED|CONNECT|RESPONSE_STATUS_CODE|REQ_CONTENT_LENGTH_MISMATCH|RES_CONTENT_LENGTH_MISMATCH)|ERR_TLS_.*|ERR_SSL_.*|CERT_.*|UNABLE_TO_.*|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)$/;

/**
 * One HTTP exchange: the whole answer (headers and body) within `timeoutMs`. Failures are mapped by
 * `err.code`, not `instanceof`, so they hold for any undici copy (the MockAgent of tests included).
 */
export async function attempt(input: AttemptInput): Promise<RawResponse> {
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(new Error('timeout')), input.timeoutMs);
  const signal = input.signal ? AbortSignal.any([input.signal, timer.signal]) : timer.signal;
  const origin = input.url.origin;
  // undici only acts on an abort once connected; a proxy stuck in CONNECT would never time out.
  let stopWaiting: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    stopWaiting = () => signal.removeEventListener('abort', onAbort);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const exchange = (async () => {
      const res = await request.call(input.dispatcher, {
        origin,
        path: `${input.url.pathname}${input.url.search}`,
        method: input.method,
        headers: input.headers,
        body: input.body,
        signal,
      });
      const text = await res.body.text();
      return { status: res.statusCode, headers: res.headers, text };
    })();
    exchange.catch(() => undefined);
    return await Promise.race([exchange, aborted]);
  } catch (err) {
    if (input.signal?.aborted) throw new AbortedError(err);
    if (timer.signal.aborted) throw new TimeoutError(origin, input.timeoutMs, err);
    const code = errorCode(err);
    if (code && TIMEOUT_CODES.has(code)) throw new TimeoutError(origin, input.timeoutMs, err);
    if (code && CONNECTION_CODES.test(code)) throw new ConnectionError(origin, code, err);
    throw err;
  } finally {
    clearTimeout(timeout);
    stopWaiting?.();
  }
}

function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}
