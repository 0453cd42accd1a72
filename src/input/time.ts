import { usageError } from '../errors.js';
import { parseZonedDateTime, zonedDateTimeProblem } from '../schema/datetime.js';
import { SCHEDULE_HORIZON_DAYS } from '../schema/limits.js';

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const RELATIVE = /^\+(\d+)([mhd])$/;

/**
 * Turns `--send-at` (ISO 8601 with a zone, or `+30m` / `+2h` / `+3d`) into the UTC ISO string the
 * API receives, checking it lies in the future and within the scheduling horizon.
 */
export function parseSendAt(value: string, now: Date = new Date(), field = '--send-at'): string {
  const input = value.trim();
  const relative = RELATIVE.exec(input);
  let when: Date;
  if (relative) {
    when = new Date(now.getTime() + Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS]);
  } else {
    const zoned = parseZonedDateTime(input);
    if (!zoned) {
      const problem = zonedDateTimeProblem(input)!;
      if (problem.startsWith('is not an ISO')) throw usageError(`${field}: "${value}" is not ISO 8601 with a time zone (2026-12-01T09:00:00Z) or relative (+30m, +2h, +3d)`);
      throw usageError(`${field}: "${value}" ${problem}`);
    }
    when = zoned;
  }
  checkSchedule(when, now, field);
  return when.toISOString();
}

// The form the API is sent as is: seconds, and a zone written Z or ±hh:mm.
const CANONICAL_ENDING = /T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A batch entry's `sendAt` in another ISO 8601 form (no seconds, a ±hhmm or ±hh zone, a lower-case z)
 * becomes the UTC ISO string `--send-at` would send; anything else is
 * returned as it was, for the schema to accept or explain.
 */
export function canonicalSendAt(value: unknown): unknown {
  if (typeof value !== 'string' || CANONICAL_ENDING.test(value)) return value;
  return parseZonedDateTime(value)?.toISOString() ?? value;
}

/** The service rejects a past time and anything beyond the horizon; say so before sending. */
export function checkSchedule(when: Date, now: Date, field: string): void {
  if (when.getTime() <= now.getTime()) throw usageError(`${field}: ${when.toISOString()} is in the past`);
  const horizon = now.getTime() + SCHEDULE_HORIZON_DAYS * UNIT_MS.d;
  if (when.getTime() > horizon) {
    throw usageError(`${field}: ${when.toISOString()} is more than ${SCHEDULE_HORIZON_DAYS} days ahead (latest ${new Date(horizon).toISOString()})`);
  }
}

const SPAN_MS = { s: 1000, ...UNIT_MS } as const;

/** A span of time such as 90s, 5m, 1h, 2d, in milliseconds (`--max-age`, `--older-than`). */
export function parseDuration(value: string, flag: string): number {
  const m = /^(\d+)([smhd])$/.exec(value.trim());
  const ms = m ? Number(m[1]) * SPAN_MS[m[2] as keyof typeof SPAN_MS] : 0;
  if (!(ms > 0)) throw usageError(`${flag}: "${value}" is not a duration (e.g. 90s, 5m, 1h, 2d)`);
  return ms;
}
