import { startSandbox, type DeliveryRecord, type InboxEmail, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';

export type { DeliveryRecord, InboxEmail, RunningSandbox, SandboxOptions };

export interface TestSandbox extends RunningSandbox {
  /** Every email the sandbox caught (GET /_sandbox/emails). */
  emails(): Promise<InboxEmail[]>;
  /** Every webhook delivery attempt (GET /_sandbox/deliveries). */
  deliveries(): Promise<DeliveryRecord[]>;
  /** POST /_sandbox/reset, as a script would send it (JSON, no Origin); throws unless 200. */
  reset(): Promise<void>;
}

async function items<T>(url: string): Promise<T[]> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
  return ((await res.json()) as { items: T[] }).items;
}

/**
 * A real sandbox on a free loopback port, quiet; close it in afterAll/afterEach. It keeps every
 * email (a `retain` far above what a test sends, unless the test sets one), so that `emails()` is
 * every email caught even where a file's tests together send more than the default 10,000.
 */
export async function withSandbox(opts: SandboxOptions = {}): Promise<TestSandbox> {
  const sandbox = await startSandbox({ port: 0, ...opts, config: { retain: 10_000_000, ...opts.config } });
  return {
    ...sandbox,
    close: () => sandbox.close(),
    emails: () => items<InboxEmail>(`${sandbox.baseUrl}/_sandbox/emails`),
    deliveries: () => items<DeliveryRecord>(`${sandbox.baseUrl}/_sandbox/deliveries`),
    reset: async () => {
      const res = await fetch(`${sandbox.baseUrl}/_sandbox/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      if (!res.ok) throw new Error(`POST /_sandbox/reset answered ${res.status}`);
    },
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert wire bodies field by field
export interface HttpAnswer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface CallOptions {
  /** The API key to present; `null` sends no Authorization header. Default: the sandbox's key. */
  key?: string | null;
  headers?: Record<string, string>;
  /** A raw body sent as is (for malformed JSON and the like). */
  raw?: string;
}

/** Real HTTP calls against a sandbox; the body is parsed as JSON when it is JSON. */
export function client(sandbox: RunningSandbox) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  return async function call<T = any>(method: string, path: string, body?: unknown, opts: CallOptions = {}): Promise<HttpAnswer<T>> {
    const key = opts.key === undefined ? sandbox.apiKey : opts.key;
    const headers: Record<string, string> = { ...(key === null ? {} : { authorization: `Bearer ${key}` }) };
    const payload = opts.raw ?? (body === undefined ? undefined : JSON.stringify(body));
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${sandbox.baseUrl}${path}`, { method, headers: { ...headers, ...opts.headers }, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  };
}
