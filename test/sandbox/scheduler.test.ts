import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { Scheduler } from '../../src/sandbox/scheduler.js';
import type { InboxEmail } from '../../src/sandbox/state.js';

const email = (sendAt: Date): InboxEmail => ({
  id: 'trs_x',
  messageId: 'm',
  status: 'SCHEDULED',
  type: 'raw',
  to: 'a@b.test',
  html: '',
  text: '',
  settings: { trackClicks: true, trackOpens: false },
  sendAt: sendAt.toISOString(),
  createdAt: new Date().toISOString(),
});

/** What the sandbox does with a due email (SandboxState.markSent). */
const markSent = (e: InboxEmail) => {
  e.status = 'SENT';
};

beforeEach(() => vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') }));
afterEach(() => vi.useRealTimers());

describe('Scheduler', () => {
  test('moves each email to SENT when its sendAt comes, earliest first', () => {
    const delivered = vi.fn(markSent);
    const s = new Scheduler(delivered);
    const later = email(new Date('2026-01-01T00:10:00Z'));
    const sooner = email(new Date('2026-01-01T00:01:00Z'));
    s.add(later);
    s.add(sooner);
    vi.advanceTimersByTime(59_000);
    expect([sooner.status, later.status]).toEqual(['SCHEDULED', 'SCHEDULED']);
    vi.advanceTimersByTime(1_000);
    expect([sooner.status, later.status]).toEqual(['SENT', 'SCHEDULED']);
    expect(delivered).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(9 * 60_000);
    expect(later.status).toBe('SENT');
    s.stop();
  });

  test('a sendAt 89 days ahead (beyond a Node timer’s range) is not sent early', () => {
    const s = new Scheduler(markSent);
    const far = email(new Date(Date.now() + 89 * 86_400_000));
    s.add(far);
    vi.advanceTimersByTime(88 * 86_400_000);
    expect(far.status).toBe('SCHEDULED');
    vi.advanceTimersByTime(86_400_000 + 3_600_000);
    expect(far.status).toBe('SENT');
    s.stop();
  });

  test('clear forgets pending emails', () => {
    const s = new Scheduler(markSent);
    const e = email(new Date(Date.now() + 1000));
    s.add(e);
    s.clear();
    vi.advanceTimersByTime(5000);
    expect(e.status).toBe('SCHEDULED');
  });
});

describe('Scheduler with many pending emails', () => {
  test('sends each of many emails, added in any order, when its own sendAt comes', () => {
    const s = new Scheduler(markSent);
    const base = Date.now();
    const offsets = Array.from({ length: 500 }, (_, i) => ((i * 7919) % 500) * 1000 + 1000);
    const emails = offsets.map((ms) => email(new Date(base + ms)));
    for (const e of emails) s.add(e);
    for (let step = 1; step <= 500; step++) {
      vi.advanceTimersByTime(1000);
      const due = offsets.map((ms, i) => (ms <= step * 1000 ? 'SENT' : 'SCHEDULED') === emails[i]!.status);
      expect(due.every(Boolean)).toBe(true);
    }
    s.stop();
  });

  test('re-arms its timer only for an email due sooner than the one it waits for', () => {
    const arming = vi.spyOn(globalThis, 'setTimeout');
    const s = new Scheduler(markSent);
    const base = Date.now() + 3_600_000;
    for (let i = 0; i < 1000; i++) s.add(email(new Date(base + i * 1000)));
    expect(arming).toHaveBeenCalledTimes(1);
    for (let i = 1; i <= 10; i++) s.add(email(new Date(base - i * 1000)));
    expect(arming).toHaveBeenCalledTimes(11);
    expect(vi.getTimerCount()).toBe(1);
    s.stop();
    arming.mockRestore();
  });
});
