import type { Deliverer } from './deliveries.js';
import { HttpError } from './http-errors.js';
import type { SandboxState } from './state.js';
import { DEFAULT_WAIT_MS, MAX_WAIT_MS, endedBy, one, whole, type Query, type WaitsEnd } from './waiters.js';

/** What `GET /_sandbox/deliveries/wait` waits for: `count` attempts recorded, or none pending (`idle`). */
export interface DeliveryWait {
  count: number;
  idle: boolean;
  timeoutMs: number;
}

export function parseDeliveryWait(query: Query): DeliveryWait {
  const idle = one(query, 'idle');
  if (idle !== undefined && idle !== 'true' && idle !== '1') throw new HttpError(400, 'Invalid request: idle must be true or absent');
  return { count: whole(query, 'count', 1, 10_000, 1), idle: idle !== undefined, timeoutMs: whole(query, 'timeoutMs', 0, MAX_WAIT_MS, DEFAULT_WAIT_MS) };
}

/** `closed`: the wait ended because the sandbox is closing; `deleted`: because its workspace was deleted. */
export interface DeliveryWaitOutcome {
  timedOut: boolean;
  closed?: true;
  deleted?: true;
}

/**
 * The long polls on one workspace's delivery attempts (the library's `waitForDeliveries` and
 * `waitForIdle`), told of each attempt recorded: no polling.
 */
export class DeliveryWaits {
  private readonly waiting = new Set<() => void>();
  private ended: WaitsEnd | undefined;

  constructor(
    private readonly state: SandboxState,
    private readonly deliverer: Deliverer,
  ) {}

  wait(wanted: DeliveryWait, signal?: AbortSignal): Promise<DeliveryWaitOutcome> {
    if (this.ended) return Promise.resolve({ timedOut: true, ...endedBy(this.ended) });
    return new Promise((resolve) => {
      let done = false;
      const finish = (timedOut: boolean) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        this.waiting.delete(check);
        resolve(this.ended ? { timedOut, ...endedBy(this.ended) } : { timedOut });
      };
      const check = () => {
        if (this.ended) finish(true);
        else if (!wanted.idle && this.state.deliveries.length >= wanted.count) finish(false);
      };
      const abort = () => finish(true);
      const timer = setTimeout(() => finish(true), wanted.timeoutMs);
      signal?.addEventListener('abort', abort, { once: true });
      if (wanted.idle) void this.deliverer.idle().then(() => finish(false));
      this.waiting.add(check);
      check();
    });
  }

  /** An attempt was recorded, or the log emptied. */
  recorded(): void {
    for (const check of [...this.waiting]) check();
  }

  /** The sandbox is closing, or the workspace was deleted: every wait ends now, as timed out, saying why. */
  close(why: WaitsEnd = 'closed'): void {
    this.ended ??= why;
    this.recorded();
  }
}
