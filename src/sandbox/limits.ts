import { HttpError } from './errors.js';

interface Bucket {
  tokens: number;
  updated: number;
}

/**
 * Requests per second per API key, as a token bucket holding one second's worth: bursts up to the
 * rate pass, then requests pass at the rate. An exhausted bucket answers 429 with `Retry-After` in
 * whole seconds (at least 1, as the header cannot say less).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  /** At least one request fits, even at a rate below one a second. */
  private readonly capacity: number;

  constructor(private readonly perSecond: number) {
    this.capacity = Math.max(1, perSecond);
  }

  take(keyId: string, nowMs = Date.now()): void {
    let bucket = this.buckets.get(keyId);
    if (!bucket) {
      bucket = { tokens: this.capacity, updated: nowMs };
      this.buckets.set(keyId, bucket);
    }
    bucket.tokens = Math.min(this.capacity, bucket.tokens + ((nowMs - bucket.updated) / 1000) * this.perSecond);
    bucket.updated = nowMs;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    const waitMs = ((1 - bucket.tokens) / this.perSecond) * 1000;
    const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
    throw new HttpError(429, `Rate limit exceeded: at most ${this.perSecond} requests per second per API key; retry after ${retryAfter} s`, {}, {
      'retry-after': String(retryAfter),
    });
  }

  reset(): void {
    this.buckets.clear();
  }
}
