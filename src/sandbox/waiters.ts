import { HttpError } from './http-errors.js';
import type { InboxEmail } from './state.js';

/** What `GET /_sandbox/emails/wait` (and the library's `waitForEmail`) waits for; every field optional. */
export interface WaitFilter {
  /** The recipient's address, whole (case-insensitive). */
  to?: string;
  /** Case-insensitive substring of the subject. */
  subject?: string;
}

/** The longest one wait may last: a forgotten long poll must not hold a connection for ever. */
export const MAX_WAIT_MS = 600_000;
export const DEFAULT_WAIT_MS = 10_000;

export function waitMatches(email: InboxEmail, filter: WaitFilter): boolean {
  if (filter.to !== undefined && email.to.toLowerCase() !== filter.to.toLowerCase()) return false;
  if (filter.subject !== undefined && !(email.subject ?? '').toLowerCase().includes(filter.subject.toLowerCase())) return false;
  return true;
}

export interface WaitRequest {
  filter: WaitFilter;
  count: number;
  timeoutMs: number;
}

export type Query = Record<string, string | string[] | undefined>;

export function one(query: Query, name: string): string | undefined {
  const v = query[name];
  const value = Array.isArray(v) ? v[v.length - 1] : v;
  return value === undefined || value === '' ? undefined : value;
}

/** A whole-number parameter of a long poll, `fallback` when absent. */
export function whole(query: Query, name: string, min: number, max: number, fallback: number): number {
  const value = one(query, name);
  if (value === undefined) return fallback;
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= min && n <= max)) throw new HttpError(400, `Invalid request: ${name} must be a whole number from ${min} to ${max}`);
  return n;
}

export function parseWait(query: Query): WaitRequest {
  const filter: WaitFilter = {};
  const to = one(query, 'to');
  const subject = one(query, 'subject');
  if (to !== undefined) filter.to = to.trim();
  if (subject !== undefined) filter.subject = subject;
  return { filter, count: whole(query, 'count', 1, 10_000, 1), timeoutMs: whole(query, 'timeoutMs', 0, MAX_WAIT_MS, DEFAULT_WAIT_MS) };
}

/** `closed`: the wait ended because the sandbox is closing; `deleted`: because its workspace was deleted. */
export interface WaitOutcome {
  items: InboxEmail[];
  timedOut: boolean;
  closed?: true;
  deleted?: true;
}

/** Why every wait of a workspace ends at once: the sandbox closing, or the workspace deleted. */
export type WaitsEnd = 'closed' | 'deleted';

/** The field of a wait's answer that says why it ended early. */
export function endedBy(why: WaitsEnd): { closed: true } | { deleted: true } {
  return why === 'closed' ? { closed: true } : { deleted: true };
}

interface Waiter {
  filter: WaitFilter;
  count: number;
  found: InboxEmail[];
  done: (found: InboxEmail[], timedOut: boolean) => void;
}

/**
 * The emails waited for, resolved as each email is caught (no polling). A wait counts the matching
 * emails caught before it began too, so a test may send first and wait after.
 */
export class EmailWaiters {
  private readonly waiting = new Set<Waiter>();
  private ended: WaitsEnd | undefined;

  /** Resolves with the first `count` matching emails, oldest first, or what matched so far once `timeoutMs` passed. */
  wait(caught: readonly InboxEmail[], request: WaitRequest, signal?: AbortSignal): Promise<WaitOutcome> {
    const found: InboxEmail[] = [];
    if (this.ended) return Promise.resolve({ items: found, timedOut: true, ...endedBy(this.ended) });
    for (const email of caught) {
      if (!waitMatches(email, request.filter)) continue;
      found.push(email);
      if (found.length === request.count) return Promise.resolve({ items: found, timedOut: false });
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        filter: request.filter,
        count: request.count,
        found,
        done: (items, timedOut) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', abort);
          this.waiting.delete(waiter);
          resolve(this.ended ? { items, timedOut, ...endedBy(this.ended) } : { items, timedOut });
        },
      };
      const timer = setTimeout(() => waiter.done(found, true), request.timeoutMs);
      const abort = () => waiter.done(found, true);
      signal?.addEventListener('abort', abort, { once: true });
      this.waiting.add(waiter);
    });
  }

  /** A new email was caught. */
  caught(email: InboxEmail): void {
    if (this.waiting.size === 0) return;
    for (const waiter of [...this.waiting]) {
      if (!waitMatches(email, waiter.filter)) continue;
      waiter.found.push(email);
      if (waiter.found.length >= waiter.count) waiter.done(waiter.found, false);
    }
  }

  /** The inbox was emptied: what was found before no longer counts. */
  cleared(): void {
    for (const waiter of this.waiting) waiter.found.length = 0;
  }

  /** The sandbox is closing, or the workspace was deleted: every wait ends now, as timed out, saying why. */
  close(why: WaitsEnd = 'closed'): void {
    this.ended ??= why;
    for (const waiter of [...this.waiting]) waiter.done(waiter.found, true);
  }
}
