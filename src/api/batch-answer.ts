import type { EmailResult } from '../schema/index.js';
import type { ApiResponse } from '../transport/index.js';
import type { BatchFailure } from '../types.js';
import { UnexpectedResponseError } from './call-errors.js';

// Apart from emails.ts, whose answer schemas load zod: the batch engine reads every answer here,
// and a run whose entries pass the quick check (schema/email-quick.ts) never loads zod.

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The one reader of a batch answer, `{ emails: { successful, failed } }`. Each result is read on its
 * own: one the engine cannot match (no `to`, or neither `id` nor `messageId`) is left out, so its
 * entry is resent under its key rather than all fifty failing; a missing status reads as UNKNOWN.
 * The spec does not show a `failed` entry; the sandbox sends `{ index, statusCode, error, message }`:
 * each is kept when it has its type, every other field as it came, and anything else becomes a message.
 */
export function readBatchAnswer(res: ApiResponse): { successful: EmailResult[]; failed: BatchFailure[] } {
  const answer = isObject(res.body) && isObject(res.body.emails) ? res.body.emails : undefined;
  if (!answer || !Array.isArray(answer.successful) || !Array.isArray(answer.failed)) {
    throw new UnexpectedResponseError('unexpected batch response from the API: no emails.successful/failed arrays', res);
  }
  const successful: EmailResult[] = [];
  for (const r of answer.successful) {
    if (isObject(r) && typeof r.to === 'string' && (typeof r.id === 'string' || typeof r.messageId === 'string')) {
      successful.push((typeof r.status === 'string' ? r : { ...r, status: 'UNKNOWN' }) as EmailResult);
    }
  }
  const failed = answer.failed.map((f): BatchFailure => {
    if (!isObject(f)) return { message: String(f) };
    return {
      ...f,
      index: typeof f.index === 'number' ? f.index : undefined,
      statusCode: typeof f.statusCode === 'number' ? f.statusCode : undefined,
      error: typeof f.error === 'string' ? f.error : undefined,
      message: typeof f.message === 'string' ? f.message : JSON.stringify(f),
    };
  });
  return { successful, failed };
}

