import type { InboxEmail } from './state.js';

/** Node timers overflow past ~24.8 days; a far `sendAt` is reached by waking up at most this often. */
const MAX_WAIT_MS = 60 * 60 * 1000;

/** Holds scheduled emails and moves each to SENT when its `sendAt` comes. */
export class Scheduler {
  private readonly pending = new Set<InboxEmail>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly onDelivered: () => void) {}

  add(email: InboxEmail): void {
    this.pending.add(email);
    this.arm();
  }

  clear(): void {
    this.pending.clear();
    this.stop();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    this.stop();
    let next = Infinity;
    for (const e of this.pending) next = Math.min(next, Date.parse(e.sendAt!));
    if (next === Infinity) return;
    this.timer = setTimeout(() => this.tick(), Math.min(Math.max(0, next - Date.now()), MAX_WAIT_MS));
    this.timer.unref();
  }

  private tick(): void {
    this.timer = undefined;
    const now = Date.now();
    let moved = false;
    for (const e of this.pending) {
      if (Date.parse(e.sendAt!) <= now) {
        e.status = 'SENT';
        this.pending.delete(e);
        moved = true;
      }
    }
    if (moved) this.onDelivered();
    this.arm();
  }
}
