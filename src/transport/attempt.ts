import type { Dispatcher } from 'undici';
import { parseHeaders } from 'undici/lib/core/util.js';
import { MailroomError, mayHaveBeenSent } from '../errors.js';
import { AbortedError, ConnectionError, failedBeforeSending, TimeoutError } from './http-errors.js';

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

/** undici refusing the request itself (a header it will not send, say): nothing was sent. */
const REFUSED_LOCALLY = /^(UND_ERR_INVALID_ARG|UND_ERR_NOT_SUPPORTED|ERR_INVALID_ARG_.*|ERR_INVALID_HTTP_TOKEN|ERR_INVALID_CHAR|ERR_HTTP_INVALID_HEADER_VALUE)$/;

/**
 * One HTTP exchange: the whole answer (headers and body) within `timeoutMs`. Failures are mapped by
 * `err.code` and `err.name`, not `instanceof`, so they hold for any undici copy (the MockAgent of
 * tests included). Every failure becomes one of mailroom's errors (nothing of undici's escapes, with
 * the request it may hold), marked `mayHaveBeenSent` unless the request surely never left: a refused
 * connection, a DNS or TLS failure, a connect timeout, undici refusing the request itself.
 */
export async function attempt(input: AttemptInput): Promise<RawResponse> {
  const origin = input.url.origin;
  let timedOut = false;
  try {
    return await dispatchOnce(
      input.dispatcher,
      { origin, path: `${input.url.pathname}${input.url.search}`, method: input.method, headers: input.headers, body: input.body },
      { timeoutMs: input.timeoutMs, signal: input.signal, onTimeout: () => (timedOut = true) },
    );
  } catch (err) {
    throw failure(err, input, origin, timedOut);
  }
}

interface Deadline {
  timeoutMs: number;
  /** Ctrl-C, or the caller's own stop. */
  signal?: AbortSignal;
  onTimeout: () => void;
}

/**
 * One request through the dispatcher, its answer collected whole. undici's request API would wrap
 * each answer in a stream (and an async resource, and a listener) only to read it to its end here;
 * a batch makes hundreds of requests. The body is decoded as undici's `text()` does: UTF-8, a
 * leading byte order mark dropped.
 *
 * It ends at the deadline or when `signal` aborts, at once, whether or not the request was
 * connected (undici acts on an abort only once connected: a proxy stuck in CONNECT would never time
 * out), and the request is aborted too as soon as undici offers to.
 */
function dispatchOnce(dispatcher: Dispatcher, opts: Dispatcher.DispatchOptions, deadline: Deadline): Promise<RawResponse> {
  const { signal } = deadline;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    let stopped: { reason: unknown } | undefined;
    let abortRequest: ((reason: unknown) => void) | undefined;
    let settled = false;
    const settle = () => {
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const stop = (reason: unknown) => {
      if (settled) return;
      settle();
      stopped = { reason };
      abortRequest?.(reason);
      reject(reason);
    };
    const onAbort = () => stop(signal!.reason);
    const timer = setTimeout(() => {
      deadline.onTimeout();
      stop(new Error('timeout'));
    }, deadline.timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    let status = 0;
    let headers: RawResponse['headers'] = {};
    const chunks: Buffer[] = [];
    const handler = {
      onConnect(abort: (reason: unknown) => void) {
        if (stopped) abort(stopped.reason);
        else abortRequest = abort;
      },
      onHeaders(statusCode: number, rawHeaders: Buffer[]) {
        // 1xx answers (100 Continue) are not the answer.
        if (statusCode >= 200) {
          status = statusCode;
          headers = parseHeaders(rawHeaders);
        }
        return true;
      },
      onData(chunk: Buffer) {
        chunks.push(chunk);
        return true;
      },
      onComplete() {
        if (settled) return;
        settle();
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status, headers, text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text });
      },
      onError(err: unknown) {
        if (settled) return;
        settle();
        reject(err);
      },
    };
    try {
      dispatcher.dispatch(opts, handler as unknown as Dispatcher.DispatchHandler);
    } catch (err) {
      if (settled) return;
      settle();
      reject(err);
    }
  });
}

function failure(err: unknown, input: AttemptInput, origin: string, timedOut: boolean): MailroomError {
  const code = errorCode(err);
  // A GET changes nothing: whether it reached the API does not matter to anyone.
  const sent = (e: MailroomError) => {
    if (input.method !== 'GET') mayHaveBeenSent(e);
    return e;
  };
  if (input.signal?.aborted) return sent(new AbortedError(err));
  if (timedOut) return sent(new TimeoutError(origin, input.timeoutMs, err));
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return new TimeoutError(origin, input.timeoutMs, err);
  if (code && TIMEOUT_CODES.has(code)) return sent(new TimeoutError(origin, input.timeoutMs, err));
  if (isParserError(err)) return sent(new ConnectionError(origin, code, err, 'garbled'));
  if (code && CONNECTION_CODES.test(code)) return failedBeforeSending(code) ? new ConnectionError(origin, code, err) : sent(new ConnectionError(origin, code, err, 'lost'));
  if (code && REFUSED_LOCALLY.test(code)) return new MailroomError('unexpected', `could not send the request to ${origin}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  // Anything else happened while the request was on its way or its answer was coming back.
  return sent(new ConnectionError(origin, code, err, 'lost'));
}

/** undici's HTTPParserError (its `code` is the parser's, sometimes none): the answer was not HTTP. */
function isParserError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { name, code } = e as { name?: unknown; code?: unknown };
    if (name === 'HTTPParserError' || (typeof code === 'string' && code.startsWith('HPE_'))) return true;
  }
  return false;
}

function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}
