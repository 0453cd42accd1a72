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
 * Server-Sent Events for the inbox: each open page holds one stream, of the workspace it shows
 * (undefined: the first), and gets a `change` message, with a version number and that workspace's
 * counts, shortly after the workspace changes.
 */
export class LiveFeed {
  /** Each open stream and its workspace. */
  private readonly clients = new Map<ServerResponse, string | undefined>();
  /**
   * Streams whose page does not read (a tab asleep) and missed a message: each message holds the
   * whole state, so none is queued for them, only the latest sent once they read again. Memory per
   * page stays at what its stream already holds.
   */
  private readonly behind = new Set<ServerResponse>();
  private readonly versions = new Map<string | undefined, number>();
  /** The workspaces changed since the last messages went out. */
  private readonly changedSince = new Set<string | undefined>();
  private pending: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(private readonly read: (workspace: string | undefined) => LiveState) {}

  get size(): number {
    return this.clients.size;
  }

  /** Takes over a response: SSE headers, the workspace's current state at once, then every change of it. */
  attach(res: ServerResponse, headers: Record<string, string>, workspace?: string): void {
    res.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    res.write(`retry: 1000\n${this.message(workspace)}`);
    this.clients.set(res, workspace);
    res.on('close', () => {
      this.clients.delete(res);
      this.behind.delete(res);
    });
    res.on('drain', () => {
      if (this.behind.delete(res)) res.write(this.message(workspace));
    });
    this.heartbeat ??= setInterval(() => {
      // A stream still holding data needs no keep-alive.
      for (const c of this.clients.keys()) if (!c.writableNeedDrain) c.write(': keep-alive\n\n');
    }, HEARTBEAT_MS).unref();
  }

  /** Called on every change of a workspace (undefined: the first); coalesced. */
  changed(workspace?: string): void {
    this.versions.set(workspace, (this.versions.get(workspace) ?? 0) + 1);
    if (this.clients.size === 0) return;
    this.changedSince.add(workspace);
    if (this.pending) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      const messages = new Map([...this.changedSince].map((w) => [w, this.message(w)]));
      this.changedSince.clear();
      for (const [c, w] of this.clients) {
        const msg = messages.get(w);
        if (msg === undefined) continue;
        if (c.writableNeedDrain) this.behind.add(c);
        else c.write(msg);
      }
    }, COALESCE_MS);
    this.pending.unref();
  }

  /** A workspace was deleted: its streams end (a page reconnecting is then told it is gone). */
  forget(workspace: string): void {
    this.versions.delete(workspace);
    this.changedSince.delete(workspace);
    for (const [c, w] of this.clients) {
      if (w !== workspace) continue;
      this.clients.delete(c);
      this.behind.delete(c);
      c.end();
    }
  }

  close(): void {
    if (this.pending) clearTimeout(this.pending);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.pending = this.heartbeat = undefined;
    for (const c of this.clients.keys()) c.end();
    this.clients.clear();
    this.behind.clear();
  }

  private message(workspace: string | undefined): string {
    return `event: change\ndata: ${JSON.stringify({ version: this.versions.get(workspace) ?? 0, ...this.read(workspace) })}\n\n`;
  }
}
