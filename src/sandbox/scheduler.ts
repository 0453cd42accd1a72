import type { InboxEmail } from './state.js';

/** Node timers overflow past ~24.8 days; a far `sendAt` is reached by waking up at most this often. */
const MAX_WAIT_MS = 60 * 60 * 1000;

interface Pending {
  at: number;
  email: InboxEmail;
}

/**
 * Holds scheduled emails and hands each to `due` (which marks it SENT) when its `sendAt` comes. A binary min-heap on the
 * due time keeps adding an email O(log n), however many are waiting.
 */
export class Scheduler {
  private heap: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private armedAt = Infinity;

  constructor(private readonly due: (email: InboxEmail) => void) {}

  add(email: InboxEmail): void {
    const at = Date.parse(email.sendAt!);
    this.push({ at, email });
    if (at < this.armedAt) this.arm();
  }

  clear(): void {
    this.heap = [];
    this.stop();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedAt = Infinity;
  }

  private arm(): void {
    this.stop();
    const next = this.heap[0];
    if (!next) return;
    this.armedAt = next.at;
    this.timer = setTimeout(() => this.tick(), Math.min(Math.max(0, next.at - Date.now()), MAX_WAIT_MS));
    this.timer.unref();
  }

  private tick(): void {
    this.timer = undefined;
    this.armedAt = Infinity;
    const now = Date.now();
    while (this.heap.length > 0 && this.heap[0]!.at <= now) this.due(this.pop().email);
    this.arm();
  }

  private push(item: Pending): void {
    const h = this.heap;
    let i = h.push(item) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.at <= item.at) break;
      h[i] = h[parent]!;
      i = parent;
    }
    h[i] = item;
  }

  private pop(): Pending {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= h.length) break;
      const r = l + 1;
      const child = r < h.length && h[r]!.at < h[l]!.at ? r : l;
      if (h[child]!.at >= last.at) break;
      h[i] = h[child]!;
      i = child;
    }
    h[i] = last;
    return top;
  }
}
