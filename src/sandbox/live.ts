import type { ServerResponse } from 'node:http';

/** What an open inbox page needs to know to decide whether to refresh itself. */
export interface LiveState {
  emails: number;
  scheduled: number;
  deliveries: number;
}

/** Changes within this many milliseconds reach the browser as one message (a batch of 50 is one refresh). */
const COALESCE_MS = 100;
/** A comment line this often keeps proxies and idle timeouts from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;

/**
 * Server-Sent Events for the inbox: each open page holds one stream and gets a `change` message,
 * with a version number and the counts, shortly after the state changes.
 */
export class LiveFeed {
  private readonly clients = new Set<ServerResponse>();
  private version = 0;
  private pending: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(private readonly read: () => LiveState) {}

  get size(): number {
    return this.clients.size;
  }

  /** Takes over a response: SSE headers, the current state at once, then every change. */
  attach(res: ServerResponse, headers: Record<string, string>): void {
    res.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    res.write(`retry: 1000\n${this.message()}`);
    this.clients.add(res);
    res.on('close', () => this.clients.delete(res));
    this.heartbeat ??= setInterval(() => {
      for (const c of this.clients) c.write(': keep-alive\n\n');
    }, HEARTBEAT_MS).unref();
  }

  /** Called on every change; coalesced. */
  changed(): void {
    this.version += 1;
    if (this.pending || this.clients.size === 0) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      const msg = this.message();
      for (const c of this.clients) c.write(msg);
    }, COALESCE_MS);
    this.pending.unref();
  }

  close(): void {
    if (this.pending) clearTimeout(this.pending);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.pending = this.heartbeat = undefined;
    for (const c of this.clients) c.end();
    this.clients.clear();
  }

  private message(): string {
    return `event: change\ndata: ${JSON.stringify({ version: this.version, ...this.read() })}\n\n`;
  }
}
