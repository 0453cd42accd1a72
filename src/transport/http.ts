import type { Dispatcher } from 'undici';
import { attempt, type RawResponse } from './attempt.js';
import { MailroomError, mayHaveBeenSent } from '../errors.js';
import { AbortedError, ApiError, ConnectionError, TimeoutError } from './http-errors.js';
import type { ApiResponse, RequestOptions, Transport } from './index.js';
import { Pacer } from './pacer.js';
import { holdSecret, redactText } from '../secrets.js';
import { backoffMs, MAX_RETRY_AFTER_MS, mayRetry, parseRetryAfter, RETRYABLE_STATUSES, sleep } from './retry.js';

export interface HttpTransportOptions {
  /** API host root without `/v1` (see config/url.ts). */
  baseUrl: string;
  apiKey?: string;
  dispatcher: Dispatcher;
  userAgent: string;
  timeoutMs: number;
  maxRetries: number;
  /** Hint printed under a 401, e.g. "run `mailroom login`". */
  authHint?: string;
  /** --verbose sink; every line passes through redactText() first. */
  log?: (line: string) => void;
  random?: () => number;
  wait?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Close the dispatcher with the transport (false when a test shares one MockAgent). */
  ownsDispatcher?: boolean;
  /** Space requests to the API's rate limit (transport/pacer.ts); false sends each as soon as asked. */
  pacing?: boolean;
  now?: () => number;
}

const BODY_LOG_LIMIT = 4_000;

export function createHttpTransport(options: HttpTransportOptions): Transport {
  const wait = options.wait ?? sleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const pacer = options.pacing === false ? undefined : new Pacer({ now, wait });
  holdSecret(options.apiKey);
  const log = options.log ? (line: string) => options.log?.(redactText(line)) : undefined;
  // Redacted before clipping: a secret cut in half at the limit no longer looks like one.
  const logBody = (label: string, text: string) => log?.(`  ${label}: ${clip(redactText(text))}`);

  // A request given up on (timeout, Ctrl-C) may still hold a connection: close() then destroys.
  let abandoned = false;

  // A batch makes hundreds of requests to one path: its URL is parsed once.
  const urls = new Map<string, URL>();
  const urlOf = (path: string, query: RequestOptions['query']): URL => {
    if (query !== undefined) return buildUrl(options.baseUrl, path, query);
    let url = urls.get(path);
    if (url === undefined) {
      url = buildUrl(options.baseUrl, path);
      if (urls.size < 64) urls.set(path, url);
    }
    return url;
  };

  async function request<T>(opts: RequestOptions): Promise<ApiResponse<T>> {
    const url = urlOf(opts.path, opts.query);
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': options.userAgent };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const maxRetries = mayRetry(opts.method, opts.idempotent) ? (opts.maxRetries ?? options.maxRetries) : 0;
    const timeoutMs = opts.timeoutMs ?? options.timeoutMs;
    // Whether an attempt so far may have reached the API (its answer lost, garbled, late or a 5xx):
    // then the final error says so, whatever the last attempt met, since the first may have sent it.
    let reached = false;
    const failed = (err: MailroomError): MailroomError => {
      reached ||= err.mayHaveBeenSent;
      if (reached && opts.method !== 'GET') mayHaveBeenSent(err);
      return err;
    };

    for (let n = 0; ; n++) {
      if (pacer) {
        let paced: number;
        try {
          paced = await pacer.acquire(opts.pacingSignal ?? opts.signal);
        } catch (err) {
          throw failed(new AbortedError(err));
        }
        if (paced > 0) log?.(`  paced ${paced} ms to stay within the API's rate limit`);
      }
      log?.(`→ ${opts.method} ${url.href}${n > 0 ? ` (retry ${n})` : ''}`);
      if (body !== undefined) logBody('request body', body);
      const started = now();
      let raw: RawResponse;
      try {
        raw = await attempt({ dispatcher: options.dispatcher, url, method: opts.method, headers, body, timeoutMs, signal: opts.signal });
      } catch (caught) {
        const err = failed(caught as MailroomError);
        pacer?.failed();
        if (err instanceof TimeoutError || err instanceof AbortedError) abandoned = true;
        const transient = (err instanceof ConnectionError && err.transient) || err instanceof TimeoutError;
        log?.(`← ${err.message}`);
        if (!transient || n >= maxRetries) throw err;
        await retryAfter(n, backoffMs(n, random), err instanceof TimeoutError ? 'timeout' : 'connection error', undefined, err instanceof ConnectionError ? err.code : undefined);
        continue;
      }
      pacer?.observe(raw.status, raw.headers, started);
      opts.onAnswer?.(raw.status, raw.headers);
      const requestId = header(raw.headers, 'x-request-id');
      log?.(`← ${raw.status} in ${now() - started} ms${requestId ? ` (request id ${requestId})` : ''}`);
      if (raw.text) logBody('response body', raw.text);
      const parsed = parseBody(raw.text);
      if (raw.status >= 200 && raw.status < 300) {
        return { status: raw.status, body: parsed as T, requestId, headers: raw.headers };
      }
      reached ||= raw.status >= 500;
      const retryAfterMs = parseRetryAfter(raw.headers['retry-after']);
      const retryable = RETRYABLE_STATUSES.has(raw.status) && n < maxRetries && (retryAfterMs ?? 0) <= MAX_RETRY_AFTER_MS;
      if (!retryable) {
        throw failed(ApiError.from({ status: raw.status, body: parsed, requestId, retryAfterMs, authHint: options.authHint, baseUrl: options.baseUrl }));
      }
      await retryAfter(n, retryAfterMs ?? backoffMs(n, random), `HTTP ${raw.status}`, raw.status);
    }

    async function retryAfter(n: number, delayMs: number, reason: string, status?: number, code?: string): Promise<void> {
      log?.(`  retrying in ${delayMs} ms after ${reason}`);
      try {
        opts.onRetry?.({ attempt: n + 1, delayMs, reason, ...(status === undefined ? {} : { status }), ...(code === undefined ? {} : { code }) });
      } catch (err) {
        // The program's callback, not the request, failed: no retry, but the error still says
        // whether the request may have reached the API (and the API layer adds its keys).
        throw failed(new MailroomError('unexpected', `onRetry threw: ${String(err)} (the request was not retried)`, { cause: err }));
      }
      await wait(delayMs, opts.signal);
    }
  }

  return {
    request,
    async close() {
      if (options.ownsDispatcher === false) return;
      await (abandoned ? options.dispatcher.destroy() : options.dispatcher.close());
    },
  };
}

export function buildUrl(baseUrl: string, path: string, query?: RequestOptions['query']): URL {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}${path.startsWith('/') ? path : `/${path}`}`);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined) url.searchParams.set(k, String(v));
  }
  return url;
}

function header(headers: RawResponse['headers'], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** JSON when it parses; otherwise the text (an HTML error page from a proxy), or undefined if empty. */
function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const clip = (s: string) => (s.length > BODY_LOG_LIMIT ? `${s.slice(0, BODY_LOG_LIMIT)}… (${s.length} chars)` : s);
