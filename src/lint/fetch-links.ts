import undici from 'undici';

// undici is CommonJS: its bundled chunk exposes only a default export.
const { request } = undici;

export interface LinkStatus {
  url: string;
  /** The final HTTP status (after redirects), when one came. */
  status?: number;
  /** Why there is no status: a timeout, a refused connection, too many redirects. */
  error?: string;
  /** HEAD, or GET when HEAD was refused or failed. */
  method: 'HEAD' | 'GET';
  /** The answer's Content-Length, when it gave one (an image's weight). */
  bytes?: number;
  redirects: number;
  ms: number;
}

export interface FetchLimits {
  /** Time for one link, redirects and the GET retry included. */
  timeoutMs: number;
  concurrency: number;
  signal: AbortSignal;
}

const MAX_REDIRECTS = 5;

/**
 * Fetches each URL with HEAD, then with GET when HEAD got an error status or no answer (many servers
 * refuse or mishandle HEAD), following up to 5 redirects, each link bounded by `timeoutMs`. Bodies are
 * never read: a GET is answered as soon as its status arrives.
 */
export async function fetchLinks(urls: readonly string[], limits: FetchLimits): Promise<LinkStatus[]> {
  const results: LinkStatus[] = new Array(urls.length);
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const i = next++;
      results[i] = await checkOne(urls[i] as string, limits);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limits.concurrency, urls.length) }, worker));
  return results;
}

async function checkOne(url: string, limits: FetchLimits): Promise<LinkStatus> {
  const started = performance.now();
  // A controller its timer holds, not AbortSignal.timeout(): AbortSignal.any() holds its sources
  // weakly, and a garbage collection took that signal before it fired (the link then waited for ever).
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), limits.timeoutMs);
  const signal = AbortSignal.any([limits.signal, timeout.signal]);
  const done = (r: Omit<LinkStatus, 'ms' | 'url'>): LinkStatus => ({ url, ...r, ms: Math.round(performance.now() - started) });
  try {
    const head = await follow(url, 'HEAD', signal);
    // GET again only where HEAD itself may be the problem: an error status, or a server that hung up on it.
    const answered = head.status !== undefined && head.status < 400;
    if (answered || signal.aborted) return done(head);
    return done(await follow(url, 'GET', signal));
  } finally {
    clearTimeout(timer);
  }
}

async function follow(start: string, method: 'HEAD' | 'GET', signal: AbortSignal): Promise<Omit<LinkStatus, 'ms' | 'url'>> {
  let url = start;
  for (let redirects = 0; ; redirects++) {
    let res;
    try {
      res = await request(url, { method, signal, headers: { 'user-agent': 'mailroom-lint (link check)', accept: '*/*' } });
    } catch (err) {
      const e = err as { code?: string; name?: string; message?: string };
      const why = signal.aborted ? 'timed out' : (e.code ?? e.name ?? 'failed');
      return { method, redirects, error: why };
    }
    // Only the status matters: the body is dropped unread (its abort error is expected, not a failure).
    res.body.on('error', () => undefined).destroy();
    const location = res.headers.location;
    if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
      if (redirects >= MAX_REDIRECTS) return { method, redirects, status: res.statusCode, error: `more than ${MAX_REDIRECTS} redirects` };
      try {
        url = new URL(location, url).href;
      } catch {
        return { method, redirects, status: res.statusCode, error: 'a redirect to an invalid URL' };
      }
      if (!/^https?:/.test(url)) return { method, redirects, status: res.statusCode };
      continue;
    }
    const length = Number(res.headers['content-length']);
    return { method, redirects, status: res.statusCode, ...(Number.isSafeInteger(length) && length >= 0 && res.headers['content-length'] !== undefined ? { bytes: length } : {}) };
  }
}
