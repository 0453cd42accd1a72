import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isLoopback } from '../config/url.js';
import { usageError } from '../errors.js';
import { httpUrlProblem, URL_PROBLEMS } from '../schema/text.js';

export interface ForwardResult {
  url: string;
  status?: number;
  error?: string;
  durationMs: number;
}

/** `--forward-to`: an http(s) URL, normalised; a usage error naming the flag otherwise. */
export function checkForwardUrl(value: string): string {
  const problem = httpUrlProblem(value);
  if (problem === 'not-a-url') throw usageError(`--forward-to: "${value}" is not a URL (e.g. http://localhost:3000/webhooks)`);
  if (problem === 'scheme') throw usageError(`--forward-to: "${value}" must be an http:// or https:// URL`);
  if (problem) throw usageError(`--forward-to: ${URL_PROBLEMS[problem]}`);
  return new URL(value).toString();
}

/**
 * Whether `--forward-to` points back at the listener (`--port 4242 --forward-to
 * http://localhost:4242/`): every delivery would be forwarded to itself without end. Any local name
 * for this machine on the listener's port counts; port 0 (a free port, unknown yet) never matches.
 */
export function forwardsToItself(forwardTo: string, host: string, port: number): boolean {
  const url = new URL(forwardTo);
  const target = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if (port === 0 || target !== port) return false;
  const name = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  // A connection to the unspecified address (0.0.0.0, ::) reaches this machine too.
  return isLoopback(name) || name === '0.0.0.0' || name === '::' || name === host.replace(/^\[|\]$/g, '').toLowerCase();
}

// Hop-by-hop headers (RFC 9110 §7.6.1) describe one connection, not the message; host and
// content-length are set anew for the next hop.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length']);

/** The end-to-end headers of a received request, ready to send on; names listed in Connection go too. */
export function forwardableHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const connection = headers.connection;
  const listed = new Set(
    (Array.isArray(connection) ? connection.join(',') : (connection ?? ''))
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(lower) || listed.has(lower)) continue;
    out[lower] = value;
  }
  return out;
}

/**
 * POSTs the exact body bytes with the given headers to the app under development and reports its
 * status. Never throws: a refused connection or a time-out is a result to print, not a crash.
 */
export function forward(url: string, body: Buffer, headers: Record<string, string | string[]>, options: { method?: string; timeoutMs: number; signal?: AbortSignal }): Promise<ForwardResult> {
  const started = performance.now();
  const done = (r: Omit<ForwardResult, 'url' | 'durationMs'>): ForwardResult => ({ url, ...r, durationMs: Math.round(performance.now() - started) });
  return new Promise((resolve) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    // A fresh connection per delivery: a kept-alive socket to an app that restarted (the usual state
    // of an app under development) would fail as "connection reset" instead of reaching the new one.
    const req = send(target, { method: options.method ?? 'POST', agent: false, headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(done({ status: res.statusCode })));
      res.on('error', (err) => resolve(done({ status: res.statusCode, error: err.message })));
    });
    req.setTimeout(options.timeoutMs, () => req.destroy(Object.assign(new Error(`no answer within ${options.timeoutMs} ms`), { code: 'ETIMEDOUT' })));
    req.on('error', (err: NodeJS.ErrnoException) => resolve(done({ error: describe(err, target) })));
    const stop = () => req.destroy(new Error('stopped before the app answered'));
    if (options.signal?.aborted) stop();
    options.signal?.addEventListener('abort', stop, { once: true });
    req.on('close', () => options.signal?.removeEventListener('abort', stop));
    req.end(body);
  });
}

function describe(err: NodeJS.ErrnoException, target: URL): string {
  if (err.code === 'ECONNREFUSED') return `connection refused by ${target.host} (is your app running?)`;
  if (err.code === 'ENOTFOUND') return `cannot resolve ${target.hostname}`;
  if (err.code === 'ECONNRESET') return `${target.host} closed the connection`;
  return err.message || String(err.code);
}
