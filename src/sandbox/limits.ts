import { HttpError } from './http-errors.js';

interface Bucket {
  tokens: number;
  updated: number;
}

/** The policy's name in the RateLimit fields. */
const POLICY = 'default';

/**
 * Requests per second per API key, as a token bucket holding one second's worth: bursts up to the
 * rate pass, then requests pass at the rate. Every limited answer (429 or not) carries the IETF
 * draft's `RateLimit-Policy` (the bucket: `q` requests per `w` seconds) and `RateLimit` (`r`
 * remaining, `t` seconds until the bucket is full again) fields; a 429 adds `Retry-After` in whole
 * seconds until one request fits (at least 1, as the header cannot say less). See docs/sandbox-guide.md.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  /** At least one request fits, even at a rate below one a second. */
  private readonly capacity: number;
  private readonly policy: string;

  constructor(private readonly perSecond: number) {
    this.capacity = Math.max(1, perSecond);
    // The fields carry whole numbers: the quota a window holds, and a window it surely refills in.
    const quota = Math.max(1, Math.floor(this.capacity));
    this.policy = `"${POLICY}";q=${quota};w=${Math.max(1, Math.ceil(quota / perSecond - 1e-9))}`;
  }

  /** Takes one request from `keyId`'s bucket, or throws the 429; returns the headers to answer with. */
  take(keyId: string, nowMs = Date.now()): Record<string, string> {
    let bucket = this.buckets.get(keyId);
    if (!bucket) {
      bucket = { tokens: this.capacity, updated: nowMs };
      this.buckets.set(keyId, bucket);
    }
    bucket.tokens = Math.min(this.capacity, bucket.tokens + (Math.max(0, nowMs - bucket.updated) / 1000) * this.perSecond);
    bucket.updated = Math.max(bucket.updated, nowMs);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return this.headers(bucket);
    }
    const waitMs = ((1 - bucket.tokens) / this.perSecond) * 1000;
    const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
    throw new HttpError(429, `Rate limit exceeded: at most ${this.perSecond} requests per second per API key; retry after ${retryAfter} s`, {}, {
      ...this.headers(bucket),
      'retry-after': String(retryAfter),
    });
  }

  /** Forgets the buckets of these keys (a workspace's reset: other workspaces' keys keep theirs). */
  forget(keyIds: Iterable<string>): void {
    for (const id of keyIds) this.buckets.delete(id);
  }

  private headers(bucket: Bucket): Record<string, string> {
    const untilFull = Math.ceil(((this.capacity - bucket.tokens) / this.perSecond) - 1e-9);
    return {
      'ratelimit-policy': this.policy,
      ratelimit: `"${POLICY}";r=${Math.floor(bucket.tokens)};t=${Math.max(0, untilFull)}`,
    };
  }
}
