import { describe, expect, it } from 'vitest';
import { ConcurrencyWindow } from '../../src/batch/window.js';

describe('AIMD concurrency window', () => {
  it('halves on 429 at most once a second and grows back by one per window of successes', () => {
    let t = 0;
    const w = new ConcurrencyWindow(8, () => t);
    expect(w.current).toBe(8);
    w.rateLimited();
    w.rateLimited();
    expect(w.current).toBe(4);
    t = 1500;
    w.rateLimited();
    expect(w.current).toBe(2);
    t = 3000;
    w.rateLimited();
    t = 4500;
    w.rateLimited();
    expect(w.current).toBe(1);
    w.succeeded();
    expect(w.current).toBe(2);
    w.succeeded();
    w.succeeded();
    expect(w.current).toBe(3);
    for (let i = 0; i < 100; i++) w.succeeded();
    expect(w.current).toBe(8);
  });
});
