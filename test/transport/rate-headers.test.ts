import { describe, expect, it } from 'vitest';
import { readRateHeaders } from '../../src/transport/rate-headers.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');

describe('readRateHeaders', () => {
  it("reads the current draft's RateLimit-Policy and RateLimit fields", () => {
    const s = readRateHeaders({ 'ratelimit-policy': '"default";q=60;w=60', ratelimit: '"default";r=12;t=30' }, NOW);
    expect(s).toEqual({ policies: [{ name: 'default', quota: 60, windowMs: 60_000 }], states: [{ name: 'default', remaining: 12, resetMs: 30_000 }] });
  });

  it('reads several policies, token names, extra parameters and several field lines', () => {
    const s = readRateHeaders({
      'ratelimit-policy': ['"burst";q=100;w=60;pk=:cHJvamVjdDEyMw==:', 'daily;q=1000;w=86400'],
      ratelimit: '"burst";r=0;t=5, "daily";r=900',
    }, NOW);
    expect(s.policies).toEqual([
      { name: 'burst', quota: 100, windowMs: 60_000 },
      { name: 'daily', quota: 1000, windowMs: 86_400_000 },
    ]);
    expect(s.states).toEqual([{ name: 'burst', remaining: 0, resetMs: 5_000 }, { name: 'daily', remaining: 900 }]);
  });

  it('ignores garbage: missing or non-integer parameters, negative numbers, other quota units, broken items', () => {
    const s = readRateHeaders({
      'ratelimit-policy': '"a";q=ten;w=1, "b";q=5, "c";q=5;w=0, "d";q=-5;w=1, "e";q=5;w=1;qu="content-bytes", ;;, "f";q=7;w=2, "unterminated;q=1;w=1',
      ratelimit: '"a";t=3, "b";r=1.5, "c";r=2;t=soon, "',
      'retry-after': 'whenever',
    }, NOW);
    expect(s.policies).toEqual([{ name: 'f', quota: 7, windowMs: 2_000 }]);
    expect(s.states).toEqual([{ name: 'c', remaining: 2 }]);
    expect(s.retryAfterMs).toBeUndefined();
  });

  it('reads the older RateLimit-Limit/-Remaining/-Reset trio, with a window when the limit names one', () => {
    expect(readRateHeaders({ 'ratelimit-limit': '10', 'ratelimit-remaining': '3', 'ratelimit-reset': '7' }, NOW)).toEqual({
      policies: [],
      states: [{ name: '', remaining: 3, resetMs: 7_000 }],
    });
    expect(readRateHeaders({ 'ratelimit-limit': '10, 10;w=1', 'ratelimit-remaining': '9' }, NOW).policies).toEqual([{ name: '', quota: 10, windowMs: 1_000 }]);
  });

  it('reads X-RateLimit-*, with Reset as seconds from now or as a Unix time in seconds or milliseconds', () => {
    const epochS = String(NOW / 1000 + 20);
    expect(readRateHeaders({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': epochS }, NOW).states).toEqual([{ name: '', remaining: 0, resetMs: 20_000 }]);
    expect(readRateHeaders({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW + 1_500) }, NOW).states).toEqual([{ name: '', remaining: 0, resetMs: 1_500 }]);
    expect(readRateHeaders({ 'x-ratelimit-remaining': '4', 'x-ratelimit-reset': '9' }, NOW).states).toEqual([{ name: '', remaining: 4, resetMs: 9_000 }]);
    expect(readRateHeaders({ 'x-ratelimit-remaining': 'lots', 'x-ratelimit-reset': '-1' }, NOW).states).toEqual([]);
  });

  it('prefers the current fields over the older ones, and reads Retry-After as seconds or a date', () => {
    const s = readRateHeaders({ 'ratelimit-policy': '"p";q=5;w=1', 'x-ratelimit-remaining': '99', 'retry-after': '2' }, NOW);
    expect(s).toEqual({ policies: [{ name: 'p', quota: 5, windowMs: 1_000 }], states: [], retryAfterMs: 2_000 });
    expect(readRateHeaders({ 'retry-after': 'Mon, 23 Nov 2026 12:00:03 GMT' }, NOW).retryAfterMs).toBe(3_000);
  });

  it('finds nothing in an answer without rate headers', () => {
    expect(readRateHeaders({ 'content-type': 'application/json' }, NOW)).toEqual({ policies: [], states: [] });
  });
});
