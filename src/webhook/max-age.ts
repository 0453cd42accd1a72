import { usageError } from '../errors.js';
import { relativeTime } from '../output/relative-time.js';

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `--max-age`: a span such as 90s, 5m, 1h, 2d. */
export function parseMaxAge(value: string): number {
  const m = /^(\d+)([smhd])$/.exec(value.trim());
  const ms = m ? Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS] : 0;
  if (!(ms > 0)) throw usageError(`--max-age: "${value}" is not a duration (e.g. 90s, 5m, 1h, 2d)`);
  return ms;
}

/**
 * Why a delivery is refused as a possible replay: its envelope time (spec `createdAt`, or the
 * observed `timestamp`) is older than `maxAgeMs`. The signature covers the body only, so this time
 * is the one thing that tells a fresh delivery from a captured one sent again. Undefined when it is
 * fresh or carries no time (then nothing can be said).
 */
export function tooOld(createdAt: string | undefined, maxAgeMs: number, now: Date, flag = format(maxAgeMs)): string | undefined {
  if (createdAt === undefined) return undefined;
  const at = Date.parse(createdAt);
  if (Number.isNaN(at)) return undefined;
  const age = now.getTime() - at;
  if (age <= maxAgeMs) return undefined;
  return `the delivery was created at ${createdAt}, ${relativeTime(createdAt, now.getTime())}, over --max-age ${flag}: refused as a possible replay`;
}

function format(ms: number): string {
  for (const [unit, size] of [['d', UNIT_MS.d], ['h', UNIT_MS.h], ['m', UNIT_MS.m]] as const) if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms / 1000}s`;
}
