import { describe, expect, test } from 'vitest';
import { HttpError } from '../../src/sandbox/http-errors.js';
import { RateLimiter } from '../../src/sandbox/limits.js';

function rejection(fn: () => void): HttpError {
  try {
    fn();
  } catch (err) {
    return err as HttpError;
  }
  throw new Error('expected a 429');
}

describe('RateLimiter', () => {
  test('lets a burst of the rate through, then answers 429 with the spec body and Retry-After', () => {
    const limiter = new RateLimiter(3);
    for (let i = 0; i < 3; i++) limiter.take('aki_a', 1000);
    const err = rejection(() => limiter.take('aki_a', 1000));
    expect(err).toBeInstanceOf(HttpError);
    expect(err.body).toEqual({ statusCode: 429, error: 'Too Many Requests', message: expect.stringContaining('3 requests per second') });
    expect(err.headers['retry-after']).toBe('1');
  });

  test('refills at the rate and counts keys apart', () => {
    const limiter = new RateLimiter(2);
    limiter.take('aki_a', 0);
    limiter.take('aki_a', 0);
    expect(() => limiter.take('aki_a', 0)).toThrow(HttpError);
    limiter.take('aki_b', 0);
    limiter.take('aki_a', 500);
    expect(() => limiter.take('aki_a', 500)).toThrow(HttpError);
  });

  test('a slow rate asks for more than one second', () => {
    const limiter = new RateLimiter(0.25);
    limiter.take('aki_a', 0);
    expect(rejection(() => limiter.take('aki_a', 0)).headers['retry-after']).toBe('4');
  });

  test('every answer carries the IETF RateLimit-Policy and RateLimit fields: the bucket, what remains, seconds until full', () => {
    const limiter = new RateLimiter(5);
    expect(limiter.take('aki_a', 0)).toEqual({ 'ratelimit-policy': '"default";q=5;w=1', ratelimit: '"default";r=4;t=1' });
    for (let i = 0; i < 3; i++) limiter.take('aki_a', 0);
    expect(limiter.take('aki_a', 0)).toEqual({ 'ratelimit-policy': '"default";q=5;w=1', ratelimit: '"default";r=0;t=1' });
    const err = rejection(() => limiter.take('aki_a', 100));
    expect(err.headers).toEqual({ 'ratelimit-policy': '"default";q=5;w=1', ratelimit: '"default";r=0;t=1', 'retry-after': '1' });
    // A full bucket again after a second: nothing to wait for.
    expect(limiter.take('aki_a', 2000).ratelimit).toBe('"default";r=4;t=1');
  });

  test('rates below one a second, or not whole, announce a window the bucket surely refills in', () => {
    expect(new RateLimiter(0.25).take('aki_a', 0)['ratelimit-policy']).toBe('"default";q=1;w=4');
    expect(new RateLimiter(0.3).take('aki_a', 0)['ratelimit-policy']).toBe('"default";q=1;w=4');
    expect(new RateLimiter(0.01).take('aki_a', 0)).toEqual({ 'ratelimit-policy': '"default";q=1;w=100', ratelimit: '"default";r=0;t=100' });
    expect(new RateLimiter(2.5).take('aki_a', 0)['ratelimit-policy']).toBe('"default";q=2;w=1');
    expect(new RateLimiter(50).take('aki_a', 0)['ratelimit-policy']).toBe('"default";q=50;w=1');
  });

  test('forget forgets the buckets of the keys named, and only those', () => {
    const limiter = new RateLimiter(1);
    limiter.take('aki_a', 0);
    limiter.take('aki_b', 0);
    limiter.forget(['aki_a']);
    expect(() => limiter.take('aki_a', 0)).not.toThrow();
    expect(() => limiter.take('aki_b', 0)).toThrow(HttpError);
  });
});
