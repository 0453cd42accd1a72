import { count } from '../plural.js';

const UNITS: readonly (readonly [name: string, seconds: number])[] = [
  ['year', 365 * 86_400],
  ['month', 30 * 86_400],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
];

/**
 * The span in the largest unit it reaches, rounded to the nearest whole one (59 min 40 s is 1 hour):
 * a time set `+2h` from now and shown a second later is still "in 2 hours", not "in 1 hour".
 */
function inUnits(span: number): { n: number; unit: string } | undefined {
  const i = UNITS.findIndex(([, size]) => span >= size);
  if (i < 0) return undefined;
  const [name, size] = UNITS[i]!;
  const n = Math.round(span / size);
  const above = UNITS[i - 1];
  if (above && n * size >= above[1]) return { n: Math.round(span / above[1]), unit: above[0] };
  return { n, unit: name };
}

/** `2 hours ago`, `in 3 days`, `just now`: a time for people at a terminal (JSON keeps the exact one). */
export function relativeTime(iso: string, now = Date.now()): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const seconds = Math.round((now - at) / 1000);
  const rounded = inUnits(Math.abs(seconds));
  if (!rounded) return seconds >= 0 ? 'just now' : 'in a moment';
  const text = count(rounded.n, rounded.unit);
  return seconds >= 0 ? `${text} ago` : `in ${text}`;
}

const SHORT: Record<string, string> = { year: 'y', month: 'mo', day: 'd', hour: 'h', minute: 'm' };

/** `3m ago`, `in 2h`, `now`: relativeTime in at most 8 characters, for a table that is short of room. */
export function shortRelativeTime(iso: string, now = Date.now()): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const seconds = Math.round((now - at) / 1000);
  const rounded = inUnits(Math.abs(seconds));
  if (!rounded) return 'now';
  const text = `${rounded.n}${SHORT[rounded.unit]}`;
  return seconds >= 0 ? `${text} ago` : `in ${text}`;
}
