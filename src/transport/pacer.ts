import { MAX_RETRY_AFTER_MS } from './retry.js';
import { readRateHeaders, type RateSignals } from './rate-headers.js';

type Headers = Record<string, string | string[] | undefined>;

export interface PacerOptions {
  now?: () => number;
  /** Waits `ms`, rejecting when `signal` aborts (transport/retry.ts `sleep`). */
  wait: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A slot further away than this is not waited for: the request goes and the API's answer decides. */
  maxWaitMs?: number;
}

/** One quota the client mirrors: a token bucket refilled at `quota` per window, holding at most `quota`. */
interface Bucket {
  capacity: number;
  perMs: number;
  tokens: number;
  at: number;
  /** Announced by the service, or guessed from 429s that came with nothing but Retry-After. */
  source: 'announced' | 'estimated';
  /** When this bucket's quota was set. */
  since: number;
}

/**
 * Quota kept in hand, in time: the service counts a request when it arrives, which may be later
 * than it left (a busy network, a busy server), so requests spaced exactly can arrive bunched.
 * Keeping this much of a bucket unspent absorbs that, at the cost of this much time once per run.
 * A bucket too small to keep it in hand (one request a second holds one) instead counts each
 * request as taken when its answer came, up to this much later than it left: the next one then
 * cannot arrive too soon after it, at the cost of a round trip per request.
 */
const JITTER_MS = 250;
const NOT_HELD = Promise.resolve(0);
/** Send times of answered requests kept for estimating a quota from Retry-After alone. */
const HISTORY_MS = 5 * 60_000;

/**
 * Spaces the requests of one transport so they stay within the API's rate limit, shared by every
 * request in flight (a batch runs several at once). It learns the limit from the answers: the
 * quota the service announces (RateLimit-Policy, RateLimit-Limit with a window), what remains
 * (RateLimit, X-RateLimit-Remaining/-Reset), and Retry-After on a 429, which holds every request
 * until then. Until the first answer comes back only one request is in flight, so a limit the
 * service announces is known before a burst can exceed it. Pacing only delays a request: what is
 * sent, its idempotency key and the retry rules stay the transport's (docs/batch.md, "Rate limits: pacing").
 */
export class Pacer {
  private readonly now: () => number;
  private readonly maxWaitMs: number;
  private readonly buckets = new Map<string, Bucket>();
  private holdUntil = 0;
  private heard = false;
  private probing = false;
  private firstAnswer: Promise<void>;
  private release: () => void = () => undefined;
  private readonly answeredAt: number[] = [];
  private readonly queue: Waiter[] = [];
  private pumping = false;
  private nap: AbortController | undefined;
  /** Time spent holding the queue for the rate limit (a quota, Retry-After), not for the first answer. */
  private heldMs = 0;

  constructor(private readonly opts: PacerOptions) {
    this.now = opts.now ?? Date.now;
    this.maxWaitMs = opts.maxWaitMs ?? MAX_RETRY_AFTER_MS;
    this.firstAnswer = new Promise((resolve) => (this.release = resolve));
  }

  /**
   * Waits for this request's slot; returns how long it was held for the rate limit (ms): waiting
   * for the first answer, or behind requests that go at once, is not pacing. Requests go in the
   * order they asked.
   */
  acquire(signal?: AbortSignal): Promise<number> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.goesNow()) return NOT_HELD;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, since: this.now(), heldAtStart: this.heldMs, signal };
      waiter.onAbort = () => {
        const i = this.queue.indexOf(waiter);
        if (i !== -1) this.queue.splice(i, 1);
        if (this.queue.length === 0) this.nap?.abort();
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.queue.push(waiter);
      if (!this.pumping) void this.pump();
    });
  }

  /**
   * The common case, decided without queueing: nobody waits ahead, the first answer came, and no
   * quota or hold asks for a delay. The request is counted as going, as pump() counts it.
   */
  private goesNow(): boolean {
    if (this.pumping || this.queue.length > 0 || !this.heard) return false;
    const now = this.now();
    if (this.holdUntil > now) return false;
    for (const b of this.buckets.values()) {
      refill(b, now);
      if (b.tokens < 1 + Math.min(b.capacity - 1, b.perMs * JITTER_MS)) return false;
    }
    for (const b of this.buckets.values()) b.tokens -= 1;
    return true;
  }

  /**
   * Lets the queue's head go when its slot comes, one at a time. A request is counted when it
   * really goes, not when it was queued: a timer that fires late (a busy machine) must not let the
   * next one follow too closely, as the service counts from when each arrives.
   */
  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      while (this.queue.length > 0) {
        if (!this.heard) {
          if (this.probing) {
            await this.firstAnswer;
            continue;
          }
          this.probing = true;
          this.go();
          continue;
        }
        const now = this.now();
        let start = Math.max(now, this.holdUntil);
        for (const b of this.buckets.values()) {
          refill(b, now);
          const need = 1 + Math.min(b.capacity - 1, b.perMs * JITTER_MS);
          if (b.tokens < need) start = Math.max(start, now + (need - b.tokens) / b.perMs);
        }
        const delay = Math.ceil(start - now);
        if (delay > 0 && delay <= this.maxWaitMs) {
          this.nap = new AbortController();
          // Woken early when the queue empties (every waiter gave up): nothing is left to pace.
          await this.opts.wait(delay, this.nap.signal).catch(() => undefined);
          this.heldMs += Math.max(0, this.now() - now);
          continue;
        }
        for (const b of this.buckets.values()) b.tokens -= 1;
        this.go();
      }
    } finally {
      this.pumping = false;
    }
  }

  private go(): void {
    const w = this.queue.shift()!;
    if (w.onAbort) w.signal?.removeEventListener('abort', w.onAbort);
    // Bounded by its own time in the queue: a nap under way when it asked counts from then.
    w.resolve(Math.min(Math.max(0, this.now() - w.since), this.heldMs - w.heldAtStart));
  }

  /** Learns from an answer to a request that `acquire` let go at `sentAt`. */
  observe(status: number, headers: Headers, sentAt: number): void {
    const now = this.now();
    this.heard = true;
    this.release();
    const signals = readRateHeaders(headers, now);
    this.learnPolicies(signals, now);
    this.learnStates(signals, now);
    if (status === 429) {
      this.limited(signals, sentAt, now);
      return;
    }
    this.remember(sentAt, now);
    for (const b of this.buckets.values()) {
      const uncovered = JITTER_MS - (b.capacity - 1) / b.perMs;
      if (uncovered > 0) {
        refill(b, now);
        b.tokens -= Math.min(now - sentAt, uncovered) * b.perMs;
      }
    }
  }

  /**
   * An attempt that got no answer (connection error, timeout): the requests waiting for the first
   * answer go, after its caller has seen the error (a batch that stops on it sends them not at all).
   */
  failed(): void {
    if (this.heard) return;
    setImmediate(() => {
      this.heard = true;
      this.release();
    });
  }

  private learnPolicies(signals: RateSignals, now: number): void {
    for (const p of signals.policies) {
      if (p.quota <= 0) continue;
      const perMs = p.quota / p.windowMs;
      const b = this.buckets.get(p.name);
      if (b && b.source === 'announced' && b.capacity === p.quota && b.perMs === perMs) continue;
      if (b) {
        refill(b, now);
        Object.assign(b, { capacity: p.quota, perMs, tokens: Math.min(b.tokens, p.quota), source: 'announced', since: now });
      } else {
        // What remains after this request, as the service counts it; else this request took one.
        const state = signals.states.find((s) => s.name === p.name) ?? (signals.states.length === 1 ? signals.states[0] : undefined);
        const tokens = Math.min(p.quota, state?.remaining ?? p.quota - 1);
        this.buckets.set(p.name, { capacity: p.quota, perMs, tokens, at: now, source: 'announced', since: now });
      }
      // A guess made before the service announced its policy is superseded by it.
      for (const [name, other] of this.buckets) if (other.source === 'estimated') this.buckets.delete(name);
    }
  }

  private learnStates(signals: RateSignals, now: number): void {
    for (const s of signals.states) {
      const b = this.buckets.get(s.name) ?? (this.buckets.size === 1 ? [...this.buckets.values()][0] : undefined);
      if (b?.source === 'announced') {
        refill(b, now);
        // The service's count trails ours by the requests still on their way, so it only ever
        // lowers our estimate, and by whole requests: another client may be spending the quota.
        b.tokens = Math.min(b.tokens, s.remaining + 1);
      } else if (s.remaining === 0 && s.resetMs !== undefined && s.resetMs <= this.maxWaitMs) {
        // No rate to pace by: nothing left means nothing until the reset.
        this.holdUntil = Math.max(this.holdUntil, now + s.resetMs);
      }
    }
  }

  private limited(signals: RateSignals, sentAt: number, now: number): void {
    for (const b of this.buckets.values()) {
      refill(b, now);
      b.tokens = Math.min(b.tokens, 0);
    }
    // A bare 429 says nothing of when: the transport's backoff decides the retry.
    const holdMs = signals.retryAfterMs;
    if (holdMs === undefined || holdMs > this.maxWaitMs) return;
    this.holdUntil = Math.max(this.holdUntil, now + holdMs);
    if ([...this.buckets.values()].some((b) => b.source === 'announced')) return;
    // Only Retry-After to go by: what got through in that much time before is the quota.
    const windowMs = Math.max(holdMs, 1);
    const through = this.answeredAt.filter((t) => t > now - windowMs).length;
    let perMs = Math.max(1, through) / windowMs;
    const old = this.buckets.get('');
    // A request sent before the last guess is no news about it.
    if (old && sentAt < old.since) return;
    // A request sent under the last guess still drew a 429: the guess was too generous.
    if (old) perMs = Math.min(perMs, old.perMs * 0.8);
    this.buckets.set('', { capacity: Math.max(1, Math.floor(perMs * windowMs)), perMs, tokens: 0, at: now, source: 'estimated', since: now });
  }

  private remember(sentAt: number, now: number): void {
    this.answeredAt.push(sentAt);
    while (this.answeredAt.length > 0 && this.answeredAt[0]! < now - HISTORY_MS) this.answeredAt.shift();
    if (this.answeredAt.length > 100_000) this.answeredAt.splice(0, this.answeredAt.length - 100_000);
  }
}

function refill(b: Bucket, now: number): void {
  if (now > b.at) {
    b.tokens = Math.min(b.capacity, b.tokens + (now - b.at) * b.perMs);
    b.at = now;
  }
}

interface Waiter {
  resolve: (waitedMs: number) => void;
  reject: (reason: unknown) => void;
  since: number;
  /** The pacer's heldMs when this request asked: what it adds until the request goes was for the rate limit. */
  heldAtStart: number;
  signal?: AbortSignal;
  onAbort?: () => void;
}
