import { describe, expect, it } from 'vitest';
import { tooOld } from '../../src/webhook/max-age.js';

describe('a delivery older than --max-age', () => {
  const now = new Date('2026-03-10T12:00:00Z');
  const minutesBefore = (m: number) => new Date(now.getTime() - m * 60_000).toISOString();

  it.each([
    [3494, '2 days ago'],
    [60, '1 hour ago'],
    [7, '7 minutes ago'],
  ])('%i minutes old: says "%s", as people read an age', (minutes, said) => {
    expect(tooOld(minutesBefore(minutes), 5 * 60_000, now)).toBe(`the delivery was created at ${minutesBefore(minutes)}, ${said}, over --max-age 5m: refused as a possible replay`);
  });

  it('fresh, or with no time: nothing to say', () => {
    expect(tooOld(minutesBefore(4), 5 * 60_000, now)).toBeUndefined();
    expect(tooOld(undefined, 5 * 60_000, now)).toBeUndefined();
  });
});
