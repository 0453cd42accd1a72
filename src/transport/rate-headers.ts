import { parseRetryAfter } from './retry.js';

type Headers = Record<string, string | string[] | undefined>;

/** A quota policy the service announced: `quota` requests per `windowMs`. */
export interface RatePolicy {
  name: string;
  quota: number;
  windowMs: number;
}

/** Where a policy stands after this answer: `remaining` requests until `resetMs` from now. */
export interface RateState {
  /** '' when the header names no policy (the older single-value fields). */
  name: string;
  remaining: number;
  resetMs?: number;
}

export interface RateSignals {
  policies: RatePolicy[];
  states: RateState[];
  retryAfterMs?: number;
}

/**
 * What an answer says about the rate limit, read tolerantly: the IETF draft's `RateLimit-Policy`
 * and `RateLimit` fields (draft-ietf-httpapi-ratelimit-headers), the older `RateLimit-Limit/
 * -Remaining/-Reset` trio, the common `X-RateLimit-*` fields, and `Retry-After`. A value that does
 * not parse is ignored, never an error: these are hints (see docs/batch.md, "Rate limits: pacing").
 */
export function readRateHeaders(headers: Headers, now: number = Date.now()): RateSignals {
  // Most answers carry none of them (the sandbox's, a service without limits): nothing to parse.
  if (RATE_FIELDS.every((name) => headers[name] === undefined)) return { policies: [], states: [] };
  const policies: RatePolicy[] = [];
  for (const item of sfList(one(headers['ratelimit-policy']))) {
    const q = sfInteger(item.params.q);
    const w = sfInteger(item.params.w);
    const unit = item.params.qu;
    if (q === undefined || w === undefined || w === 0 || (unit !== undefined && unquote(unit) !== 'requests')) continue;
    policies.push({ name: item.name, quota: q, windowMs: w * 1000 });
  }
  const states: RateState[] = [];
  for (const item of sfList(one(headers.ratelimit))) {
    const r = sfInteger(item.params.r);
    if (r === undefined) continue;
    const t = sfInteger(item.params.t);
    states.push({ name: item.name, remaining: r, ...(t === undefined ? {} : { resetMs: t * 1000 }) });
  }
  // The older fields, when the draft's current ones are absent: one unnamed policy.
  if (policies.length === 0 && states.length === 0) {
    for (const prefix of ['ratelimit-', 'x-ratelimit-']) {
      const limit = legacyLimit(one(headers[`${prefix}limit`]));
      const remaining = plainInteger(one(headers[`${prefix}remaining`]));
      const reset = legacyReset(one(headers[`${prefix}reset`]), now);
      if (limit?.windowMs !== undefined) policies.push({ name: '', quota: limit.quota, windowMs: limit.windowMs });
      if (remaining !== undefined) states.push({ name: '', remaining, ...(reset === undefined ? {} : { resetMs: reset }) });
      if (limit || remaining !== undefined) break;
    }
  }
  const retryAfterMs = parseRetryAfter(headers['retry-after'], now);
  return { policies, states, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
}

const RATE_FIELDS = ['ratelimit-policy', 'ratelimit', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after'];

/** Several field lines of one name are one list (RFC 9110 §5.3). */
function one(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

interface SfItem {
  name: string;
  params: Record<string, string>;
}

/**
 * A structured-field list of items with parameters (RFC 8941), as far as these fields need:
 * `"name";q=100;w=60, "other";q=5`. Members that do not look like that are skipped.
 */
function sfList(text: string): SfItem[] {
  const items: SfItem[] = [];
  for (const member of split(text, ',')) {
    const [head, ...rest] = split(member, ';').map((s) => s.trim());
    if (head === undefined || !/^("([^"\\]|\\.)*"|[A-Za-z*][\w:/.*!#$%&'+^`|~-]*)$/.test(head)) continue;
    const params: Record<string, string> = {};
    for (const p of rest) {
      const eq = p.indexOf('=');
      const key = (eq === -1 ? p : p.slice(0, eq)).trim().toLowerCase();
      if (key) params[key] = eq === -1 ? '?1' : p.slice(eq + 1).trim();
    }
    items.push({ name: unquote(head), params });
  }
  return items;
}

/** Splits on `sep` outside double quotes. */
function split(text: string, sep: string): string[] {
  const parts: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted && c === '\\' && i + 1 < text.length) {
      cur += c + text[++i];
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === sep && !quoted) {
      parts.push(cur);
      cur = '';
    } else cur += c;
  }
  parts.push(cur);
  return parts.filter((p) => p.trim() !== '');
}

function unquote(s: string): string {
  return s.startsWith('"') && s.endsWith('"') && s.length >= 2 ? s.slice(1, -1).replace(/\\(.)/g, '$1') : s;
}

/** A non-negative structured-field integer (at most 15 digits), or undefined. */
function sfInteger(s: string | undefined): number | undefined {
  return s !== undefined && /^\d{1,15}$/.test(s) ? Number(s) : undefined;
}

function plainInteger(s: string): number | undefined {
  const t = s.split(',')[0]!.trim();
  return /^\d{1,15}$/.test(t) ? Number(t) : undefined;
}

/** `100`, or an earlier draft's `100, 100;w=60` (the window is then known). */
function legacyLimit(s: string): { quota: number; windowMs?: number } | undefined {
  const quota = plainInteger(s);
  if (quota === undefined || quota === 0) return undefined;
  const w = /;\s*w=(\d{1,9})\b/.exec(s)?.[1];
  return { quota, ...(w !== undefined && Number(w) > 0 ? { windowMs: Number(w) * 1000 } : {}) };
}

/**
 * Seconds from now, as the drafts say; some services send a Unix time instead (seconds, or
 * milliseconds), recognisable by its size.
 */
function legacyReset(s: string, now: number): number | undefined {
  const n = plainInteger(s);
  if (n === undefined) return undefined;
  if (n >= 1e12) return Math.max(0, n - now);
  if (n >= 1e9) return Math.max(0, n * 1000 - now);
  return n * 1000;
}
