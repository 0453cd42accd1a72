import { createHash } from 'node:crypto';
import { readFileChunks } from '../input/detect.js';
import { TextChecker } from '../input/text.js';

/** Big reads: the whole input is hashed before the first request, and each read is a trip to the thread pool. */
const READ_SIZE = 1024 * 1024;

/**
 * `sha256:<hex>` of a file's bytes, read through one reused buffer. A resume checks it before
 * sending anything: the idempotency keys are tied to entry positions, so a changed input would pair
 * old keys with new emails and the API would silently answer with the old results.
 */
export async function fingerprintFile(path: string, checkTextAs?: string): Promise<string> {
  const hash = createHash('sha256');
  // The same pass checks the file is text (input/text.ts), so a bad byte anywhere refuses the whole run before a request.
  const checker = checkTextAs === undefined ? undefined : new TextChecker(checkTextAs);
  for await (const chunk of readFileChunks(path, READ_SIZE)) {
    hash.update(chunk);
    checker?.push(chunk);
  }
  checker?.end();
  return `sha256:${hash.digest('hex')}`;
}

/**
 * `sha256:<hex>` of a file's first `bytes` bytes: a file that grew at its end (entries appended)
 * starts with the bytes a journal's run read, whose fingerprint the journal holds.
 */
export async function fingerprintStart(path: string, bytes: number): Promise<string> {
  const hash = createHash('sha256');
  let left = bytes;
  for await (const chunk of readFileChunks(path, READ_SIZE)) {
    hash.update(chunk.subarray(0, left));
    left -= Math.min(left, chunk.length);
    if (left === 0) break;
  }
  return `sha256:${hash.digest('hex')}`;
}

/**
 * Tells two API keys apart without holding either: a SHA-256 prefix (keys are long random secrets,
 * so the prefix reveals nothing usable). Journals record it to refuse a resume with another key.
 */
export function keyFingerprint(key: string): string {
  return `sha256:${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}
