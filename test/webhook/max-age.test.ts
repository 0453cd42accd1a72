import { describe, expect, it } from 'vitest';
import { ageProblem } from '../../src/webhook/max-age.js';

describe('a delivery older than --max-age', () => {
  const now = new Date('2026-03-10T12:00:00Z');
  const minutesBefore = (m: number) => new Date(now.getTime() - m * 60_000).toISOString();

  it.each([
    [3494, '2 days ago'],
    [60, '1 hour ago'],
    [7, '7 minutes ago'],
  ])('%i minutes old: says "%s", as people read an age', (minutes, said) => {
    expect(ageProblem(minutesBefore(minutes), 5 * 60_000, now)).toEqual({ reason: 'too-old', message: `the delivery was created at ${minutesBefore(minutes)}, ${said}, over --max-age 5m: refused as a possible replay` });
  });

  it('fresh, or up to a minute ahead (clock skew): nothing to say', () => {
    expect(ageProblem(minutesBefore(4), 5 * 60_000, now)).toBeUndefined();
    expect(ageProblem(minutesBefore(-1), 5 * 60_000, now)).toBeUndefined();
  });

  it('further ahead than the skew allowance, without a time, or with one that is not a time: refused (before, all three passed)', () => {
    expect(ageProblem(minutesBefore(-10), 5 * 60_000, now)).toEqual({
      reason: 'in-the-future',
      message: `the delivery was created at ${minutesBefore(-10)}, in 10 minutes, beyond the 60 s allowed for clock skew: refused as a possible replay (check this machine's clock)`,
    });
    expect(ageProblem(undefined, 5 * 60_000, now)).toEqual({ reason: 'no-time', message: 'the delivery carries no time (createdAt or timestamp), so --max-age 5m cannot tell it from a replay: refused' });
    expect(ageProblem('soon', 5 * 60_000, now)).toEqual({ reason: 'no-time', message: 'the delivery has a createdAt that is not a time ("soon"), so --max-age 5m cannot tell it from a replay: refused' });
  });
});
