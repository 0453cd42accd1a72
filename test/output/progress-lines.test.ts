import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/context.js';
import { createProgressBar, createProgressLines, type BatchProgress } from '../../src/output/progress.js';
import { fakeContext } from '../helpers/context.js';

/** A clock the test moves by hand; its timer fires when the test says time has passed. */
function handClock(): Clock & { advance(ms: number): void; timers: number } {
  let t = 1_000_000;
  const timers: { ms: number; fn: () => void; next: number; stopped: boolean }[] = [];
  return {
    now: () => t,
    every(ms, fn) {
      const timer = { ms, fn, next: t + ms, stopped: false };
      timers.push(timer);
      return () => (timer.stopped = true);
    },
    advance(ms) {
      const end = t + ms;
      for (;;) {
        const due = timers.filter((x) => !x.stopped && x.next <= end).sort((a, b) => a.next - b.next)[0];
        if (!due) break;
        t = due.next;
        due.next += due.ms;
        due.fn();
      }
      t = end;
    },
    get timers() {
      return timers.filter((x) => !x.stopped).length;
    },
  };
}

/** `settled` of `total` entries sent, the file read in proportion. */
const at = (settled: number, total: number | undefined, failed = 0): BatchProgress => ({
  read: settled,
  sent: settled - failed,
  failed,
  skipped: 0,
  bytesRead: total === undefined ? 0 : settled * 100,
  bytesTotal: total === undefined ? undefined : total * 100,
  startedAt: 0,
  concurrency: 4,
});

const lines = (err: string) => err.split('\n').filter(Boolean);

describe('batch progress lines for a stderr that is not a terminal (CI)', () => {
  it('a long run: one line each time 10 seconds and 10 percent have both passed; plain text, no redraws', () => {
    const { ctx, stderr } = fakeContext();
    const clock = handClock();
    const view = createProgressLines(ctx.io, clock);
    // 20 minutes for 12,000 entries, updated every second: 10% takes 2 minutes, so that is the pace.
    for (let s = 0; s <= 1200; s++) {
      view.update(at(s * 10, 12_000));
      clock.advance(1000);
    }
    view.stop();
    const out = lines(stderr());
    expect(out).toHaveLength(9);
    expect(out[0]).toBe('batch: 10% (1,200 of about 12,000): 1,200 sent, 0 failed, 10/s, ETA 18m 00s, 2m 00s elapsed');
    expect(out.map((l) => Number(/(\d+)%/.exec(l)![1]))).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90]);
    expect(stderr()).not.toContain('\r');
    expect(stderr()).not.toContain('\u001b');
    expect(clock.timers).toBe(0);
  });

  it('a quick run: 10 percent comes often, a line only every 10 seconds', () => {
    const { ctx, stderr } = fakeContext();
    const clock = handClock();
    const view = createProgressLines(ctx.io, clock);
    // 30 seconds for 3,000 entries: 10% every 3 s, so a line every 10 s, from the timer (each tells
    // the update just before it: 9 s, 19 s, 29 s in).
    for (let s = 0; s <= 30; s++) {
      view.update(at(s * 100, 3000));
      clock.advance(1000);
    }
    view.stop();
    expect(lines(stderr()).map((l) => /(\d+)%/.exec(l)![1])).toEqual(['30', '63', '96']);
  });

  it('a run that stalls (retries, rate limits) still says it is alive every 5 minutes, from the timer', () => {
    const { ctx, stderr } = fakeContext();
    const clock = handClock();
    const view = createProgressLines(ctx.io, clock);
    view.update(at(150, 1000));
    clock.advance(10_000);
    expect(lines(stderr())).toEqual(['batch: 15% (150 of about 1,000): 150 sent, 0 failed, 15/s, ETA 57s, 10s elapsed']);
    clock.advance(290_000);
    expect(lines(stderr())).toHaveLength(1);
    clock.advance(10_000);
    expect(lines(stderr())[1]).toBe('batch: 15% (150 of about 1,000): 150 sent, 0 failed, 0/s, 5m 10s elapsed');
    view.stop();
    clock.advance(600_000);
    expect(lines(stderr())).toHaveLength(2);
  });

  it('input of unknown size (stdin): a line every 10 seconds with the count so far', () => {
    const { ctx, stderr } = fakeContext();
    const clock = handClock();
    const view = createProgressLines(ctx.io, clock);
    for (let s = 0; s <= 25; s++) {
      view.update(at(s * 7, undefined));
      clock.advance(1000);
    }
    view.stop();
    // The timer's line at 10 s tells the last update (9 s in), with no ETA.
    expect(lines(stderr())).toEqual(['batch: 63 so far: 63 sent, 0 failed, 6/s, 10s elapsed', 'batch: 133 so far: 133 sent, 0 failed, 7/s, 20s elapsed']);
  });

  it('counts and the rate carry thousands separators, as every count mailroom prints', () => {
    const { ctx, stderr } = fakeContext();
    const clock = handClock();
    const view = createProgressLines(ctx.io, clock);
    view.update({ ...at(12_000, 40_000, 1_500), skipped: 2_000, read: 14_000 });
    clock.advance(10_000);
    view.update({ ...at(30_000, 40_000, 1_500), skipped: 2_000, read: 40_000 }, true);
    clock.advance(10_000);
    view.stop();
    expect(lines(stderr())).toEqual([
      'batch: 29% (14,000 of about 46,667): 10,500 sent, 1,500 failed, 2,000 skipped, 1,050/s, ETA 32s, 10s elapsed',
      'batch: 80% (32,000 of 40,000): 28,500 sent, 1,500 failed, 2,000 skipped, 1,425/s, ETA 6s, 20s elapsed',
    ]);
  });

  it('nothing before the first update, nothing after stop', () => {
    const { ctx, stderr } = fakeContext();
    const clock = handClock();
    const view = createProgressLines(ctx.io, clock);
    clock.advance(120_000);
    view.stop();
    clock.advance(120_000);
    expect(stderr()).toBe('');
  });
});

describe('the batch progress bar on a terminal', () => {
  it('counts and the rate carry thousands separators', () => {
    const { ctx, stderr } = fakeContext();
    const bar = createProgressBar(ctx.io, new AbortController().signal);
    bar.update({ read: 12_000, sent: 11_000, failed: 1_000, skipped: 1_500, bytesRead: 1, bytesTotal: 1, startedAt: Date.now() - 5_000, concurrency: 1_024 }, true);
    bar.stop();
    expect(stderr()).toMatch(/\| 11,000 sent, 1,000 failed, 1,500 skipped \| 2,\d{3}\/s, 1,024 in flight \| ETA /);
  });
});
