import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { openDurableAppender, type DurableAppender } from '../output/files.js';
import { JournalLock } from '../output/lock.js';
import { isMailroomError, usageError } from '../errors.js';
import { fsReason } from '../files.js';
import { setOwn } from '../schema/own-field.js';

/**
 * The listener's journal: one NDJSON line per request received, in arrival order, with the raw
 * body and the headers as sent, so `webhooks replay` can re-deliver exactly what arrived. The
 * signature is kept (it is not secret); the token never is, and credentials some proxy might add
 * (Authorization, Cookie) are redacted.
 */
export interface JournalEntry {
  receivedAt: string;
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  /** The raw body; absent when it was refused for its size, or refused and over REFUSED_BODY_LIMIT. */
  body?: string;
  /** For a refused body not kept: its size and SHA-256, enough to tell one junk post from another. */
  bodyBytes?: number;
  bodySha256?: string;
  /** `base64` when the body bytes are not valid UTF-8 (so `body` round-trips exactly). */
  bodyEncoding?: 'base64';
  status: number;
  verified: boolean;
  event?: string;
  reason?: string;
}

export const REDACTED_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie']);

export function journalHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    setOwn(out, name, REDACTED_HEADERS.has(name.toLowerCase()) ? '[redacted]' : value);
  }
  return out;
}

export function encodeBody(body: Buffer): Pick<JournalEntry, 'body' | 'bodyEncoding'> {
  const text = body.toString('utf8');
  return Buffer.from(text, 'utf8').equals(body) ? { body: text } : { body: body.toString('base64'), bodyEncoding: 'base64' };
}

export function entryBody(entry: JournalEntry): Buffer | undefined {
  if (entry.body === undefined) return undefined;
  return Buffer.from(entry.body, entry.bodyEncoding === 'base64' ? 'base64' : 'utf8');
}

/** A refused request's body is kept up to this size (enough to see what was wrong with it). */
export const REFUSED_BODY_LIMIT = 4 * 1024;
/** Refused requests stop being journalled once their lines add up to this, so junk cannot fill the disk. */
export const REFUSED_TOTAL_LIMIT = 1024 * 1024;

/** The body as the journal keeps it: whole when accepted or small, else its size and digest only. */
export function journalBody(body: Buffer | undefined, accepted: boolean): Pick<JournalEntry, 'body' | 'bodyEncoding' | 'bodyBytes' | 'bodySha256'> {
  if (body === undefined) return {};
  if (accepted || body.length <= REFUSED_BODY_LIMIT) return encodeBody(body);
  return { bodyBytes: body.length, bodySha256: createHash('sha256').update(body).digest('hex') };
}

/** Where an append landed: its line number in the file (1-based), or the write's error. */
export type Appended = { line: number; error?: undefined } | { line?: undefined; error: Error };

/**
 * Appends entries in arrival order, each on disk (written and fdatasync'ed) when its promise
 * resolves: the listener answers 2xx only then. Entries that arrive while a write is under way go
 * together in the next write, so a burst costs one sync, not one each. Each append learns its line
 * number, which is how the listener names what it has not forwarded (`webhooks replay --lines`):
 * arrival times cannot, since a delivery whose body is slow is journalled after one that started later.
 */
export class JournalWriter {
  private pending: Array<{ line: string; done: (r: Appended) => void }> = [];
  private flushing = false;
  private flushed: Promise<void> = Promise.resolve();

  private constructor(
    readonly path: string,
    private readonly file: DurableAppender,
    private readonly lock: JournalLock,
    /** Lines already in the file: the next entry goes on line `lines + 1`. */
    private lines: number,
    /** The file ends in a line cut short (a crash mid-write elsewhere): the next entry starts a line of its own. */
    private torn: boolean,
  ) {}

  /**
   * Checks the file can be appended to before anything is received (a bad path is a usage error),
   * and takes `<journal>.lock` for the whole run: two listeners appending to one journal would
   * interleave their deliveries and each print a replay command covering the other's.
   */
  static async open(path: string): Promise<JournalWriter> {
    let file: DurableAppender;
    try {
      file = await openDurableAppender(path, 0o600);
    } catch (err) {
      throw usageError(`--journal: cannot write ${path}: ${fsReason(err, 'write')}`);
    }
    try {
      const lock = JournalLock.acquire(path, { subject: `--journal ${path}`, holder: 'another mailroom webhooks listen', createDir: false });
      try {
        const { lines, torn } = await countLines(path);
        return new JournalWriter(path, file, lock, lines, torn);
      } catch (err) {
        lock.release();
        throw usageError(`--journal: cannot read ${path}: ${fsReason(err, 'read')}`);
      }
    } catch (err) {
      await file.close().catch(() => undefined);
      throw err;
    }
  }

  /** Resolves once the entry is on disk, with its line, or this write's error (the caller decides what to answer). */
  append(entry: JournalEntry): Promise<Appended> {
    return new Promise((done) => {
      this.pending.push({ line: `${JSON.stringify(entry)}\n`, done });
      if (!this.flushing) this.flushed = this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0);
      let error: Error | undefined;
      try {
        await this.file.append((this.torn ? '\n' : '') + batch.map((b) => b.line).join(''));
        this.torn = false;
      } catch (err) {
        // The appender truncates a failed write away: the line numbers are those before it.
        error = err as Error;
      }
      const first = this.lines + 1;
      if (!error) this.lines += batch.length;
      batch.forEach((b, i) => b.done(error ? { error } : { line: first + i }));
    }
    this.flushing = false;
  }

  private closing: Promise<void> | undefined;

  /** Idempotent: the listener closes it when it stops, and the command's cleanup on any failure. */
  close(): Promise<void> {
    return (this.closing ??= (async () => {
      await this.flushed;
      await this.file.close().catch(() => undefined);
      this.lock.release();
    })());
  }
}

/** Lines in a file, as readJournal numbers them, and whether the last one lacks its newline. */
async function countLines(path: string): Promise<{ lines: number; torn: boolean }> {
  let lines = 0;
  let last = 10;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
    if (chunk.length > 0) last = chunk[chunk.length - 1]!;
  }
  return last === 10 ? { lines, torn: false } : { lines: lines + 1, torn: true };
}

/** A journal entry and the line it is on (1-based), the position `webhooks replay --lines` names. */
export type JournalLine = JournalEntry & { line: number };

export async function readJournal(path: string): Promise<JournalLine[]> {
  let text: string;
  try {
    // A journal is a file the listener wrote: a device or pipe (/dev/zero) would be read without end.
    const st = await stat(path);
    if (!st.isFile()) throw usageError(`--journal: cannot read ${path}: ${st.isDirectory() ? 'is a directory' : 'not a regular file'}`);
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (isMailroomError(err)) throw err;
    throw usageError(`--journal: cannot read ${path}: ${fsReason(err, 'read')}`);
  }
  const entries: JournalLine[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw usageError(`--journal: line ${i + 1} of ${path} is not JSON`);
    }
    if (!isEntry(value)) throw usageError(`--journal: line ${i + 1} of ${path} is not a listener journal entry`);
    entries.push({ ...value, line: i + 1 });
  }
  return entries;
}

function isEntry(value: unknown): value is JournalEntry {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.receivedAt === 'string' &&
    typeof v.headers === 'object' &&
    v.headers !== null &&
    typeof v.status === 'number' &&
    typeof v.verified === 'boolean' &&
    (v.body === undefined || typeof v.body === 'string')
  );
}
