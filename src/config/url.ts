import { usageError } from '../errors.js';
import { httpUrlProblem, URL_PROBLEMS } from '../schema/text.js';
import { noticeLine } from '../output/notice.js';

export const DEFAULT_BASE_URL = 'https://api.smashsend.com';

/**
 * The API host root, without `/v1`: the service's own pages write the base both ways, so accept
 * `https://api.smashsend.com` and `https://api.smashsend.com/v1/` alike and never send `/v1/v1`.
 */
export function normalizeBaseUrl(input: string, origin = '--base-url', keyGoesIn = '--api-key or the store'): string {
  // `localhost:39477` parses as a URL of scheme "localhost:": say what was meant instead.
  const trimmed = input.trim();
  if (trimmed !== '' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    const host = trimmed.replace(/[:/].*$/, '');
    throw usageError(`${origin}: "${input}" has no scheme: did you mean ${isLoopback(host) ? 'http' : 'https'}://${trimmed}?`);
  }
  const problem = httpUrlProblem(trimmed);
  if (problem === 'not-a-url') throw usageError(`${origin}: "${input}" is not a URL`, ['give the API host root, e.g. https://api.smashsend.com']);
  if (problem === 'scheme') throw usageError(`${origin}: "${input}" must be an http(s) URL`);
  if (problem === 'credentials') throw usageError(`${origin}: put credentials in ${keyGoesIn}, not in the URL`);
  if (problem) throw usageError(`${origin}: ${URL_PROBLEMS[problem]}`);
  const url = new URL(trimmed);
  if (url.search || url.hash) throw usageError(`${origin}: "${input}" must not carry a query or fragment`);
  const path = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${url.origin}${path}`;
}

/**
 * Whether a host name or address is this machine's loopback interface: `localhost`, `*.localhost`,
 * 127.0.0.0/8, `::1`, and 127/8 mapped into IPv6 (`::ffff:127.0.0.1`, which URL parsing writes
 * `::ffff:7f00:1`, and sockets report dotted), with or without brackets. The one test for "does not
 * leave this machine" (the proxy bypass, the plain-http warning, the sandbox's inspection endpoints,
 * the listeners' exposure warning). The unspecified addresses (0.0.0.0, ::) are not loopback: a
 * server there listens on every interface, and a client is better told to write 127.0.0.1.
 */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host === '::1') return true;
  const v4 = /^(?:::ffff:)?(\d{1,3})\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.exec(host);
  if (v4) return v4[1] === '127';
  const mapped = /^::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(host);
  return mapped !== null && parseInt(mapped[1] as string, 16) >> 8 === 127;
}

/**
 * Why the key would travel in clear text to `baseUrl` (http:// to a host that is not loopback), in
 * words for a warning or a refusal; undefined over https:// or to this machine.
 */
export function clearTextProblem(baseUrl: string): string | undefined {
  const url = new URL(baseUrl);
  if (url.protocol !== 'http:' || isLoopback(url.hostname)) return undefined;
  return `the API key goes in clear text to ${baseUrl} (http:// to a host that is not this machine's loopback)`;
}

/** `http://127.0.0.1:4025` for `http://0.0.0.0:4025` or `http://[::]:4025` (the sandbox's own address); undefined otherwise. */
export function loopbackFor(baseUrl: string): string | undefined {
  const url = new URL(baseUrl);
  if (url.hostname !== '0.0.0.0' && url.hostname !== '[::]') return undefined;
  url.hostname = '127.0.0.1';
  return url.href.replace(/\/$/, '');
}

/**
 * The warning for a server bound to a host other machines can reach (`--host 0.0.0.0`), shared by
 * the sandbox and `webhooks listen`; undefined on loopback. `what`: who could then be reached.
 */
export function exposedHostWarning(host: string, what: string): string | undefined {
  return isLoopback(host) ? undefined : noticeLine('warning', `listening on ${host}: other machines may reach ${what}`);
}
