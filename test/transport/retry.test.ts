import { describe, expect, it } from 'vitest';
import { backoffMs, MAX_DELAY_MS, mayRetry, parseRetryAfter } from '../../src/transport/retry.js';

describe('retry policy', () => {
  it('draws full-jitter delays below an exponential cap', () => {
    expect(backoffMs(0, () => 0)).toBe(0);
    expect(backoffMs(0, () => 0.999999)).toBe(299);
    expect(backoffMs(3, () => 0.5)).toBe(1200);
    expect(backoffMs(20, () => 0.999999)).toBe(MAX_DELAY_MS - 1);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-11-22T08:00:00Z');
    expect(parseRetryAfter('1', now)).toBe(1000);
    expect(parseRetryAfter(['2.5'], now)).toBe(2500);
    expect(parseRetryAfter('Sun, 22 Nov 2026 08:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 07:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('retries a POST only when it is idempotent', () => {
    expect(mayRetry('GET', undefined)).toBe(true);
    expect(mayRetry('DELETE', undefined)).toBe(true);
    expect(mayRetry('POST', undefined)).toBe(false);
    expect(mayRetry('POST', false)).toBe(false);
    expect(mayRetry('POST', true)).toBe(true);
  });
});
