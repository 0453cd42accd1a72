import { count } from '../count.js';

const UNITS: readonly (readonly [name: string, seconds: number])[] = [
  ['year', 365 * 86_400],
  ['month', 30 * 86_400],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
];

/** `2 hours ago`, `in 3 days`, `just now`: a time for people at a terminal (JSON keeps the exact one). */
export function relativeTime(iso: string, now = Date.now()): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const seconds = Math.round((now - at) / 1000);
  const span = Math.abs(seconds);
  const unit = UNITS.find(([, size]) => span >= size);
  if (!unit) return seconds >= 0 ? 'just now' : 'in a moment';
  const n = Math.floor(span / unit[1]);
  const text = count(n, unit[0]);
  return seconds >= 0 ? `${text} ago` : `in ${text}`;
}

const SHORT: Record<string, string> = { year: 'y', month: 'mo', day: 'd', hour: 'h', minute: 'm' };

/** `3m ago`, `in 2h`, `now`: relativeTime in at most 8 characters, for a table that is short of room. */
export function shortRelativeTime(iso: string, now = Date.now()): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const seconds = Math.round((now - at) / 1000);
  const span = Math.abs(seconds);
  const unit = UNITS.find(([, size]) => span >= size);
  if (!unit) return 'now';
  const text = `${Math.floor(span / unit[1])}${SHORT[unit[0]]}`;
  return seconds >= 0 ? `${text} ago` : `in ${text}`;
}
