/**
 * ISO 8601 date-times with an explicit zone, in every form the standard allows: minutes with or
 * without seconds and fractions, a zone written Z, ±hh:mm, ±hhmm or ±hh. A time without a zone
 * would mean something different on every machine, so it is refused, with the reason.
 */
const ZONED = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:Z|([+-])(\d{2})(?::?(\d{2}))?)$/i;
const ZONELESS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?$/i;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** The instant a zoned ISO 8601 date-time names, or undefined when it is not one or names no real day and time. */
export function parseZonedDateTime(value: string): Date | undefined {
  const m = ZONED.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second = 0] = m.slice(1, 7).map((x) => Number(x ?? 0)) as number[] as [number, number, number, number, number, number];
  const ms = Math.floor(Number(`0.${m[7] ?? '0'}`) * 1000);
  const offsetH = Number(m[9] ?? 0);
  const offsetM = Number(m[10] ?? 0);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59 || offsetH > 23 || offsetM > 59) return undefined;
  const local = new Date(0);
  local.setUTCFullYear(year, month - 1, day);
  if (local.getUTCDate() !== day) return undefined; // 30 February and the like
  local.setUTCHours(hour, minute, second, ms);
  const sign = m[8] === '-' ? -1 : 1;
  return new Date(local.getTime() - sign * (offsetH * 60 + offsetM) * 60_000);
}

/** Why a value is not a zoned ISO 8601 date-time, in words for "sendAt: ..."; undefined when it is one. */
export function zonedDateTimeProblem(value: string): string | undefined {
  if (parseZonedDateTime(value)) return undefined;
  if (ZONED.test(value)) return 'is not a valid date and time';
  if (ZONELESS.test(value)) return 'needs a time zone (Z or +hh:mm)';
  if (DATE_ONLY.test(value)) return 'needs a time of day and a time zone (2026-12-01T09:00:00Z)';
  return 'is not an ISO 8601 date and time with a time zone (2026-12-01T09:00:00Z)';
}
