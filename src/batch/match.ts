import { otherEmail } from '../api/same-email.js';
import type { BatchFailure } from '../types.js';
import type { EmailRequest, EmailResult } from '../schema/index.js';

export interface MatchedBatch {
  successful: Array<{ pos: number; result: EmailResult }>;
  failed: Array<{ pos: number; failure: BatchFailure }>;
  /**
   * Positions answered with another email than the one sent: their idempotency key was used before
   * for that one (`other` describes it), so the API sent nothing for them and never will.
   */
  conflicts: Array<{ pos: number; result: EmailResult; other: string }>;
  /** Positions the answer gave no usable result for: neither a success nor a failure we could place. */
  unknown: number[];
}

const sameAddress = (a: unknown, b: string) => a === b || (typeof a === 'string' && a.trim().toLowerCase() === b.trim().toLowerCase());

/**
 * Places a batch answer back onto the request's positions. The spec does not show the shape of a
 * `failed` entry, so a failure is placed by its `index`, else by its `idempotencyKey`, else by a
 * `to` that only one unplaced entry has. Successes come in request order without the failures
 * (spec). When there is one for every position left, they pair up in order, and a result that is
 * another email (its recipient, subject or template) is a key used before: a conflict, never a
 * success. Otherwise the answer left some out: a result must fit its entry, and a position whose
 * result is missing or does not fit is left unknown: the caller resends it with the same
 * idempotency key, which is safe.
 */
export function matchBatch(emails: readonly EmailRequest[], answer: { successful: readonly EmailResult[]; failed: readonly BatchFailure[] }): MatchedBatch {
  const taken = new Array<boolean>(emails.length).fill(false);
  const failed: MatchedBatch['failed'] = [];
  for (const failure of answer.failed) {
    const pos = placeFailure(emails, taken, failure);
    if (pos === undefined) continue;
    taken[pos] = true;
    failed.push({ pos, failure });
  }
  const successful: MatchedBatch['successful'] = [];
  const conflicts: MatchedBatch['conflicts'] = [];
  const unknown: number[] = [];
  const inOrder = answer.successful.length === emails.length - failed.length;
  let r = 0;
  for (let pos = 0; pos < emails.length; pos++) {
    if (taken[pos]) continue;
    const result = answer.successful[r];
    const other = result === undefined ? undefined : otherEmail(emails[pos]!, result);
    if (result !== undefined && inOrder) {
      if (other === undefined) successful.push({ pos, result });
      else conflicts.push({ pos, result, other });
      r += 1;
    } else if (result !== undefined && other === undefined && sameAddress(result.to, emails[pos]!.to)) {
      successful.push({ pos, result });
      r += 1;
    } else {
      // Out of step: this result may be the next entry's (this one's is missing).
      unknown.push(pos);
    }
  }
  return { successful, failed, conflicts, unknown };
}

function placeFailure(emails: readonly EmailRequest[], taken: boolean[], f: BatchFailure): number | undefined {
  const free = (pos: number) => pos >= 0 && pos < emails.length && !taken[pos];
  if (typeof f.index === 'number' && Number.isInteger(f.index) && free(f.index)) return f.index;
  const key = typeof f.idempotencyKey === 'string' ? f.idempotencyKey : undefined;
  if (key !== undefined) {
    const pos = emails.findIndex((e, i) => !taken[i] && e.idempotencyKey === key);
    if (pos !== -1) return pos;
  }
  const to = typeof f.to === 'string' ? f.to : typeof (f.email as { to?: unknown } | undefined)?.to === 'string' ? (f.email as { to: string }).to : undefined;
  if (to !== undefined) {
    let found: number | undefined;
    for (let i = 0; i < emails.length; i++) {
      if (taken[i] || !sameAddress(to, emails[i]!.to)) continue;
      if (found !== undefined) return undefined;
      found = i;
    }
    return found;
  }
  return undefined;
}
