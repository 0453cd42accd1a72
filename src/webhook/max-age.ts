import { parseDuration } from '../input/time.js';
import { relativeTime } from '../output/relative-time.js';

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `--max-age`: a span such as 90s, 5m, 1h, 2d. */
export const parseMaxAge = (value: string): number => parseDuration(value, '--max-age');

/**
 * How far ahead of this machine's clock a sender's may be: a `createdAt` up to this far in the
 * future is taken as now (clocks drift), further is refused as no real delivery can be.
 */
export const CLOCK_SKEW_MS = 60_000;

export type AgeProblem = { reason: 'too-old' | 'in-the-future' | 'no-time'; message: string };

/**
 * Why `--max-age` refuses a delivery as a possible replay, or undefined when its envelope time
 * (spec `createdAt`, or the observed `timestamp`) is within it. The signature covers the body only,
 * so this time is the one thing that tells a fresh delivery from a captured one sent again, and a
 * bound the sender can step around is no bound: so a time more than CLOCK_SKEW_MS ahead, and a
 * delivery without a time (or with one that is not a time), are refused too.
 */
export function ageProblem(createdAt: string | undefined, maxAgeMs: number, now: Date, flag = format(maxAgeMs)): AgeProblem | undefined {
  const at = createdAt === undefined ? Number.NaN : Date.parse(createdAt);
  if (Number.isNaN(at)) {
    const what = createdAt === undefined ? 'carries no time (createdAt or timestamp)' : `has a createdAt that is not a time (${JSON.stringify(createdAt.slice(0, 40))})`;
    return { reason: 'no-time', message: `the delivery ${what}, so --max-age ${flag} cannot tell it from a replay: refused` };
  }
  const age = now.getTime() - at;
  if (age < -CLOCK_SKEW_MS) {
    return { reason: 'in-the-future', message: `the delivery was created at ${createdAt}, ${relativeTime(createdAt!, now.getTime())}, beyond the ${CLOCK_SKEW_MS / 1000} s allowed for clock skew: refused as a possible replay (check this machine's clock)` };
  }
  if (age <= maxAgeMs) return undefined;
  return { reason: 'too-old', message: `the delivery was created at ${createdAt}, ${relativeTime(createdAt!, now.getTime())}, over --max-age ${flag}: refused as a possible replay` };
}

function format(ms: number): string {
  for (const [unit, size] of [['d', UNIT_MS.d], ['h', UNIT_MS.h], ['m', UNIT_MS.m]] as const) if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms / 1000}s`;
}
