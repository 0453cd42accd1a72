import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { normalizeEnvelope, type NormalizedEvent } from '../schema/index.js';
import { diagnose } from './explain.js';
import { findSignatureHeader } from './signature.js';
import { ageProblem } from './max-age.js';

/**
 * The local receiver behind `webhooks listen`. node:http rather than fastify: a receiver must see
 * the raw body bytes of a request on any path before anything parses them, and must refuse an
 * oversized body while it streams in; plain node:http does both directly and costs nothing to load.
 */
export interface ListenerOptions {
  host: string;
  port: number;
  token: string;
  maxBody: number;
  /** Refuse deliveries whose envelope time is older than this (when the envelope has one). */
  maxAgeMs?: number;
  /** How long a body may take to arrive once its headers have; then the connection is closed. Default BODY_TIMEOUT_MS. */
  bodyTimeoutMs?: number;
  /** Bodies read at once; one more pushes out the one waiting longest. Default MAX_BODIES_READ. */
  maxBodiesRead?: number;
  /**
   * Called for every POST before it is answered, and the answer waits for it: this is where a
   * delivery is stored, so a 2xx means it returned. It may refuse a delivery it cannot take (503).
   */
  settle?: (delivery: Delivery) => Promise<Delivery> | Delivery;
  /** Called once per POST, in arrival order, after the sender has had its answer. */
  onDelivery: (delivery: Delivery) => Promise<void> | void;
}

export interface Delivery {
  receivedAt: string;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Undefined when the body was refused for its size before it was read. */
  body: Buffer | undefined;
  status: number;
  verified: boolean;
  /** Why it was refused (401/413/400/503), for the printed line and the journal. */
  reason?: string;
  /** Seconds the sender should wait before retrying a 503. */
  retryAfter?: number;
  event?: NormalizedEvent;
  /** The journal line it was stored on (set by `settle`), the position `webhooks replay --lines` names. */
  journalLine?: number;
}

/**
 * Nothing is known about a request until its whole body is in (the signature covers the body), so
 * a sender that stalls mid-body would hold up to --max-body of memory and a socket for as long as
 * it likes: 300 such senders of 1 MB took the listener from 68 to 367 MB. So a body must arrive
 * within BODY_TIMEOUT_MS of its headers, and at most MAX_BODIES_READ are read at once: one more
 * closes the connection of the one waiting longest. A real delivery arrives whole in milliseconds,
 * so it never waits behind stalled ones, and memory stays under MAX_BODIES_READ x --max-body.
 */
export const BODY_TIMEOUT_MS = 10_000;
export const MAX_BODIES_READ = 32;
/** Headers must arrive within this, checked every second (Node's defaults: 60 s, checked every 30 s). */
const HEADERS_TIMEOUT_MS = 10_000;

export interface RunningListener {
  url: string;
  close(): Promise<void>;
}

export async function startListener(options: ListenerOptions): Promise<RunningListener> {
  let queue: Promise<void> = Promise.resolve();
  // Requests being read or settled: close() waits for them, so every delivery the journal
  // accepted reaches onDelivery (and the listener's count of what is not yet forwarded).
  const handling = new Set<Promise<void>>();
  const bodies = new BodyReaders(options.maxBodiesRead ?? MAX_BODIES_READ, options.bodyTimeoutMs ?? BODY_TIMEOUT_MS);
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const handled = receive(req, res, options, bodies)
      .then(async (delivery) => {
        if (!delivery) return;
        const settled = options.settle ? await options.settle(delivery) : delivery;
        answer(res, settled);
        // onDelivery reports its own failures; one that throws must not stop the deliveries after it.
        queue = queue.then(() => options.onDelivery(settled)).catch(() => undefined);
      })
      // The sender went away mid-body (nobody to answer), or a bug: never leave a sender hanging.
      .catch(() => {
        if (!res.headersSent && !res.destroyed) refuse(res, 500, 'Internal Server Error', 'the listener failed to handle this request', true);
      })
      .finally(() => handling.delete(handled));
    handling.add(handled);
  };
  const server = createServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: 0, connectionsCheckingInterval: 1000 }, handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await Promise.all(handling);
      await queue;
    },
  };
}

function reply(res: ServerResponse, status: number, body: Record<string, unknown>, close = false): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...(close ? { connection: 'close' } : {}) });
  res.end(text);
}

function refuse(res: ServerResponse, status: number, error: string, message: string, close = false): void {
  reply(res, status, { statusCode: status, error, message }, close);
}

const ERRORS: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 413: 'Payload Too Large', 503: 'Service Unavailable' };

function answer(res: ServerResponse, d: Delivery): void {
  if (d.status === 200) return reply(res, 200, { received: true, event: d.event?.event });
  if (d.retryAfter !== undefined) res.setHeader('retry-after', String(d.retryAfter));
  refuse(res, d.status, ERRORS[d.status] ?? 'Error', d.reason ?? '', d.status === 413);
}

/** The requests whose bodies are being read, oldest first, each with its deadline. */
class BodyReaders {
  private readonly reading = new Map<IncomingMessage, NodeJS.Timeout>();

  constructor(
    private readonly max: number,
    private readonly timeoutMs: number,
  ) {}

  /** Reads the body of `req` (see readLimited) within the bounds above. */
  async read(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
    if (this.reading.size >= this.max) {
      const [oldest] = this.reading.keys();
      this.end(oldest!, 'pushed out by a newer request: too many bodies being read at once');
    }
    const timer = setTimeout(() => this.end(req, `the body did not arrive within ${this.timeoutMs} ms`), this.timeoutMs);
    this.reading.set(req, timer);
    try {
      return await readLimited(req, limit);
    } finally {
      clearTimeout(timer);
      this.reading.delete(req);
    }
  }

  private end(req: IncomingMessage, why: string): void {
    clearTimeout(this.reading.get(req));
    this.reading.delete(req);
    req.destroy(new Error(why));
  }
}

/** Reads and judges one request; the caller answers it (after settle). */
async function receive(req: IncomingMessage, res: ServerResponse, options: ListenerOptions, bodies: BodyReaders): Promise<Delivery | undefined> {
  const receivedAt = new Date().toISOString();
  const base = { receivedAt, method: req.method ?? 'POST', path: req.url ?? '/', headers: req.headers };
  if (req.method !== 'POST') {
    res.setHeader('allow', 'POST');
    refuse(res, 405, 'Method Not Allowed', 'webhook deliveries are POST requests');
    req.resume();
    return undefined;
  }

  const tooLarge = `the body is over the ${options.maxBody}-byte limit (--max-body)`;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > options.maxBody) {
    req.resume();
    return { ...base, body: undefined, status: 413, verified: false, reason: tooLarge };
  }
  const body = await bodies.read(req, options.maxBody);
  if (body === undefined) return { ...base, body: undefined, status: 413, verified: false, reason: tooLarge };

  const found = findSignatureHeader(req.headers);
  const verdict = diagnose(options.token, body, found?.value);
  if (!verdict.ok) return { ...base, body, status: 401, verified: false, reason: verdict.message };

  let event: NormalizedEvent | undefined;
  try {
    event = normalizeEnvelope(JSON.parse(body.toString('utf8')));
  } catch {
    event = undefined;
  }
  if (!event) {
    const reason = 'the signature is valid but the body is not a webhook event (JSON with "event" and "data" or "payload")';
    return { ...base, body, status: 400, verified: true, reason };
  }
  const stale = options.maxAgeMs === undefined ? undefined : ageProblem(event.createdAt, options.maxAgeMs, new Date(receivedAt));
  if (stale) return { ...base, body, status: 401, verified: true, event, reason: stale.message };
  return { ...base, body, status: 200, verified: true, event };
}

/** The whole body, or undefined as soon as it passes `limit` (the rest is drained and dropped). */
function readLimited(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!over) resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new Error('the sender closed the connection before the body ended'));
    });
  });
}
