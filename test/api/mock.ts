import { MockAgent } from 'undici';
import { createHttpTransport } from '../../src/transport/http.js';
import type { Transport } from '../../src/transport/index.js';

export const ORIGIN = 'https://api.example.test';
export const KEY = 'sk_live_testkey0000000000000001';
export const USER_AGENT = 'mailroom/9.9.9-test';

export interface Captured {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

/** A transport over a MockAgent that refuses real connections and records every request it answers. */
export function mockApi() {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(ORIGIN);
  const seen: Captured[] = [];
  const transport: Transport = createHttpTransport({
    baseUrl: ORIGIN,
    apiKey: KEY,
    dispatcher: agent,
    userAgent: USER_AGENT,
    timeoutMs: 5_000,
    maxRetries: 0,
    ownsDispatcher: false,
  });
  function answer(method: string, path: string, status: number, body: unknown, headers: Record<string, string> = {}) {
    pool.intercept({ method, path }).reply((opts) => {
      seen.push({ method: opts.method, path: opts.path, headers: normalise(opts.headers), body: opts.body === undefined || opts.body === null ? undefined : JSON.parse(String(opts.body)) });
      return { statusCode: status, data: JSON.stringify(body), responseOptions: { headers: { 'content-type': 'application/json', 'x-request-id': 'req_1', ...headers } } };
    });
  }
  return { agent, transport, seen, answer, close: () => agent.close() };
}

function normalise(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(headers)) {
    for (let i = 0; i < headers.length; i += 2) out[String(headers[i]).toLowerCase()] = String(headers[i + 1]);
  } else if (headers && typeof headers === 'object') {
    for (const [k, v] of Object.entries(headers as Record<string, unknown>)) out[k.toLowerCase()] = String(v);
  }
  return out;
}

/** The headers every authenticated request carries; content-type only with a body. */
export function expectedHeaders(withBody: boolean): Record<string, string> {
  return {
    authorization: `Bearer ${KEY}`,
    'user-agent': USER_AGENT,
    accept: 'application/json',
    ...(withBody ? { 'content-type': 'application/json' } : {}),
  };
}
