import { isUtf8 } from 'node:buffer';
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { isMailroomError, usageError, ValidationError } from '../errors.js';
import { fsReason } from '../files.js';
import { BODY_LIMIT } from '../schema/limits.js';

/**
 * How much mailroom reads from one input file or stdin: the API's limit for one request, since an
 * email cannot usefully be bigger (docs/input-and-output.md, "Input rules"). `api --data` allows the batch limit.
 */
export const INPUT_LIMIT = BODY_LIMIT;

export const sizeWords = (bytes: number): string => (bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`);

/**
 * A reader's usage error ("line 3, column 7: ...") naming the input it is about. The readers apply
 * it around their whole loop, not per item (an async generator wrapping each item costs a batch run
 * a few allocations per entry).
 */
export function locatedError(err: unknown, label: string | undefined): unknown {
  if (label === undefined || !(err instanceof ValidationError) || err.message.startsWith(`${label}: `)) return err;
  return usageError(`${label}: ${err.message}`, err.hints);
}

/** `--html-file page.html`, `--file (stdin)`: how messages name what was read. */
export const sourceLabel = (spec: string, flag: string): string => (spec === '-' ? `${flag} (stdin)` : `${flag} ${spec}`);

/**
 * Reads `<path|->` (`-` is stdin) as bytes, refusing anything over `limit` before reading it all:
 * a regular file by its size, a device, pipe or stdin once one byte more than the limit arrived.
 */
export async function readCapped(spec: string, flag: string, cwd: string, stdin: AsyncIterable<Buffer | string>, limit = INPUT_LIMIT): Promise<Buffer> {
  const label = sourceLabel(spec, flag);
  const tooBig = () => usageError(`${label}: larger than ${sizeWords(limit)}, the most mailroom reads from one input (the API's request limit)`);
  if (spec === '-') {
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of stdin) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      total += buf.length;
      if (total > limit) throw tooBig();
      chunks.push(buf);
    }
    return Buffer.concat(chunks);
  }
  // An unset shell variable: '' would open the current directory.
  if (spec === '') throw usageError(`${flag}: the file name is empty`);
  const cannot = (err: unknown) => usageError(`${flag}: cannot read ${spec}: ${fsReason(err, 'read')}`);
  let handle;
  try {
    handle = await open(resolve(cwd, spec), 'r');
  } catch (err) {
    throw cannot(err);
  }
  try {
    const st = await handle.stat();
    if (st.isDirectory()) throw cannot(Object.assign(new Error('directory'), { code: 'EISDIR' }));
    if (st.isFile() && st.size > limit) throw tooBig();
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(64 * 1024, limit + 1 - total));
      const { bytesRead } = await handle.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > limit) throw tooBig();
      chunks.push(buf.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks);
  } catch (err) {
    if (isMailroomError(err)) throw err;
    throw cannot(err);
  } finally {
    await handle.close();
  }
}

/** Reads `<path|->` as text: at most `limit` bytes of UTF-8 without NUL (see `checkText`). */
export async function readText(spec: string, flag: string, cwd: string, stdin: AsyncIterable<Buffer | string>, limit = INPUT_LIMIT): Promise<string> {
  const bytes = await readCapped(spec, flag, cwd, stdin, limit);
  checkText(bytes, sourceLabel(spec, flag));
  // A byte-order mark is no part of the text (Windows editors write one).
  return bytes.toString('utf8').replace(/^\uFEFF/, '');
}

/**
 * Text input is UTF-8 without NUL bytes: decoding would silently turn a bad byte into U+FFFD and
 * send it, and a NUL means binary data. Throws a usage error naming `label` and the byte offset.
 */
export function checkText(bytes: Uint8Array, label: string, offset = 0): void {
  const bad = isUtf8(bytes) ? -1 : firstInvalidUtf8(bytes);
  const nul = bytes.indexOf(0);
  if (nul !== -1 && (bad === -1 || nul < bad)) throw usageError(`${label}: a NUL byte at byte offset ${offset + nul}: binary data, not text`);
  if (bad !== -1) throw usageError(`${label}: not UTF-8 text: invalid byte 0x${bytes[bad]!.toString(16).padStart(2, '0')} at byte offset ${offset + bad}`);
}

/** Bytes in the UTF-8 sequence that `lead` begins (1 for ASCII and for bytes that begin none). */
function sequenceLength(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 1;
}

/** Index of the first byte that does not begin a well-formed UTF-8 sequence, or -1. */
export function firstInvalidUtf8(b: Uint8Array): number {
  const n = b.length;
  let i = 0;
  while (i < n) {
    const c = b[i]!;
    if (c < 0x80) {
      i += 1;
      continue;
    }
    const len = sequenceLength(c);
    if (len === 1 || i + len > n) return i;
    const c1 = b[i + 1]!;
    if ((c === 0xe0 && c1 < 0xa0) || (c === 0xed && c1 > 0x9f) || (c === 0xf0 && c1 < 0x90) || (c === 0xf4 && c1 > 0x8f)) return i;
    for (let k = 1; k < len; k++) if ((b[i + k]! & 0xc0) !== 0x80) return i;
    i += len;
  }
  return -1;
}

/** Bytes at the end of `b` (from `start`) that begin a sequence the next chunk completes. */
function incompleteTail(b: Uint8Array, start: number): number {
  for (let k = 1; k <= 3 && b.length - k >= start; k++) {
    const c = b[b.length - k]!;
    if ((c & 0xc0) === 0x80) continue;
    return c >= 0xc0 && sequenceLength(c) > k ? k : 0;
  }
  return 0;
}

/** `checkText` over a stream of chunks, with byte offsets counted from the start of the stream. */
export class TextChecker {
  private carry: Buffer = Buffer.alloc(0);
  private offset = 0;

  constructor(private readonly label: string) {}

  push(chunk: Buffer): void {
    let start = 0;
    if (this.carry.length > 0) {
      const len = sequenceLength(this.carry[0]!);
      const head = Buffer.concat([this.carry, chunk.subarray(0, len - this.carry.length)]);
      if (head.length < len) {
        this.carry = head;
        this.offset += chunk.length;
        return;
      }
      checkText(head, this.label, this.offset - this.carry.length);
      start = len - this.carry.length;
      this.carry = Buffer.alloc(0);
    }
    const end = chunk.length - incompleteTail(chunk, start);
    checkText(chunk.subarray(start, end), this.label, this.offset + start);
    if (end < chunk.length) this.carry = Buffer.from(chunk.subarray(end));
    this.offset += chunk.length;
  }

  end(): void {
    if (this.carry.length > 0) throw usageError(`${this.label}: not UTF-8 text: the input ends inside a character at byte offset ${this.offset - this.carry.length}`);
  }
}
