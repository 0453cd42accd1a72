import { randomBytes } from 'node:crypto';
import { closeSync, createReadStream, fsyncSync, ftruncateSync, openSync, statSync } from 'node:fs';
import { writeTextSync } from '../output/files.js';
import { dirname } from 'node:path';
import { isMailroomError, storageError, usageError, type MailroomError } from '../errors.js';
import { fsReason, makeDirectory } from '../files.js';

/** First line of a journal: what run it belongs to and which input it was made from. */
export interface JournalHeader {
  mailroom: 'batch-journal';
  v: 1;
  runId: string;
  createdAt: string;
  /** The input file's absolute path, or "-" for stdin. */
  input: string;
  /** `sha256:<hex>` of the input file's bytes; null for stdin, which cannot be read twice. */
  fingerprint: string | null;
  bytes: number | null;
  size: number;
  /** Flag defaults that shape the emails (html as a hash): a resume must give the same. */
  defaults?: Record<string, string | undefined>;
  /** Where the run sends: a resume elsewhere (another host or key) is refused. */
  api?: ApiIdentity;
}

/** The API a run talks to: host, key fingerprint (never the key), and the profile it came from. */
export interface ApiIdentity {
  baseUrl: string;
  key: string;
  profile: string;
}

/**
 * Entries the API accepted, one record per answered request: [index, id, status], plus the
 * entry's input hash when the input is stdin (see `inputHash`).
 */
export interface OkRecord {
  ok: Array<[number, string, string] | [number, string, string, number]>;
}

/** An entry the API refused; the entry is kept so a resume can rewrite `--failed` without it. */
export interface FailRecord {
  fail: number;
  line: number;
  error: string;
  statusCode?: number;
  entry: Record<string, unknown>;
  h?: number;
  /** The entry's text as read, when the run wrote `--failed`: a resume writes it back byte for byte. */
  raw?: string;
}

/**
 * Written before a request's entries are first sent: a hash of every input entry up to `upTo`
 * (that index included). A resume recomputes it and refuses at the first difference, before
 * reusing any key of a changed stretch of input (stdin included).
 */
export interface CheckpointRecord {
  upTo: number;
  sha: string;
}

/**
 * Written last by a run that left nothing unsent (every entry accepted, refused, invalid or a
 * duplicate): `batch journals` tells finished runs from ones a resume would still send.
 */
export interface EndRecord {
  finished: string;
  total: number;
}

export const DONE_OK = 1;
export const DONE_FAILED = 2;

/**
 * Entry states by input index, a byte each (plus 4 bytes for an input hash when the journal has
 * them): memory stays small for millions of entries.
 */
export class DoneSet {
  private bytes = new Uint8Array(1024);
  private hashes: Uint32Array | undefined;
  count = 0;

  mark(index: number, state: number, hash?: number): void {
    if (index >= this.bytes.length) this.bytes = grow(this.bytes, index);
    if (this.bytes[index] === 0) this.count += 1;
    this.bytes[index] = state;
    if (hash !== undefined) {
      this.hashes ??= new Uint32Array(this.bytes.length);
      if (index >= this.hashes.length) this.hashes = grow(this.hashes, index);
      this.hashes[index] = hash;
    }
  }

  get(index: number): number {
    return index < this.bytes.length ? this.bytes[index]! : 0;
  }

  hash(index: number): number | undefined {
    return this.hashes && index < this.hashes.length && this.bytes[index] !== 0 ? this.hashes[index] : undefined;
  }
}

function grow<T extends Uint8Array | Uint32Array>(array: T, index: number): T {
  let size = array.length;
  while (size <= index) size *= 2;
  const grown = new (array.constructor as new (n: number) => T)(size);
  grown.set(array);
  return grown;
}

/**
 * FNV-1a of an entry's JSON text. Journals of stdin runs carry it per entry: stdin cannot be
 * fingerprinted up front, so a resume checks each skipped entry against it instead.
 */
export function inputHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export const newRunId = (): string => randomBytes(6).toString('hex');

/** How often, at most, appended records are forced to disk (a kill -9 never loses a written line). */
const FSYNC_EVERY_MS = 1000;

/**
 * The append-only journal. Each record is written with one write(2) as soon as its request is
 * answered, so a kill -9 keeps every answered record (the page cache survives the process); fsync
 * runs at the safe points: after the header (before any idempotency key is used), about once a
 * second, and at the end, so a machine crash loses at most a second of records, which a resume
 * resends under the same keys.
 */
export class Journal {
  private lastSync = Date.now();
  private dirty = false;
  /** Set once a write failed (a full disk): the journal ends at its last whole record and takes no more. */
  private failure: MailroomError | undefined;

  private constructor(
    readonly path: string,
    private fd: number,
    /** Bytes of whole records: a failed write is cut back to here. */
    private size: number,
  ) {}

  /** Starts a journal; `path` must not exist (created exclusively) or be empty (a fresh `--resume` file). */
  static create(path: string, header: JournalHeader): Journal {
    let fd: number;
    try {
      makeDirectory(dirname(path));
      fd = openExclusive(path);
    } catch (err) {
      if (isMailroomError(err)) throw err;
      if (isDiskError(err)) throw storageError(path, err);
      throw usageError(`cannot write the journal ${path}: ${fsReason(err, 'write')}`);
    }
    const journal = new Journal(path, fd, 0);
    journal.append(header);
    journal.sync();
    syncDirectory(dirname(path));
    return journal;
  }

  /** Reopens a loaded journal for appending, cutting a torn last line first. */
  static reopen(path: string, validBytes: number): Journal {
    const fd = openSync(path, 'r+');
    ftruncateSync(fd, validBytes);
    fsyncSync(fd);
    closeSync(fd);
    return new Journal(path, openSync(path, 'a'), validBytes);
  }

  /** Appends one record with whole-record semantics: on a failed write the partial line is cut and a storage error thrown. */
  append(record: JournalHeader | OkRecord | FailRecord | CheckpointRecord | EndRecord): void {
    if (this.failure) throw this.failure;
    let written = 0;
    try {
      written = writeTextSync(this.fd, `${JSON.stringify(record)}\n`);
    } catch (err) {
      this.fail(err);
    }
    this.size += written;
    this.dirty = true;
    if (Date.now() - this.lastSync >= FSYNC_EVERY_MS) this.sync();
  }

  sync(): void {
    if (!this.dirty || this.failure) return;
    try {
      fsyncSync(this.fd);
    } catch (err) {
      this.fail(err);
    }
    this.dirty = false;
    this.lastSync = Date.now();
  }

  private fail(err: unknown): never {
    try {
      ftruncateSync(this.fd, this.size);
    } catch {
      // Shrinking needs no space; if even that fails, a resume cuts the torn line itself.
    }
    this.failure = storageError(this.path, err);
    throw this.failure;
  }

  /** Syncs and closes; a failure to sync is thrown (once) unless a write already failed. */
  close(): void {
    if (this.fd < 0) return;
    try {
      this.sync();
    } finally {
      closeSync(this.fd);
      this.fd = -1;
    }
  }
}

const DISK_ERRORS = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'EIO']);

export const isDiskError = (err: unknown): boolean => DISK_ERRORS.has((err as NodeJS.ErrnoException)?.code ?? '');

function openExclusive(path: string): number {
  try {
    return openSync(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || statSync(path).size > 0) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw usageError(`the journal ${path} appeared while this run was starting: another run is using it`);
      throw err;
    }
    // An empty file given to --resume (touch): nothing to lose.
    return openSync(path, 'w', 0o600);
  }
}

function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some filesystems refuse fsync on a directory; the file itself is synced.
  }
}

/**
 * The header alone, read before anything else so a mismatch is refused before any file is touched.
 * `named` is how messages name the file (the engine: the option that gave it).
 */
export async function readJournalHeader(path: string, named: string = path): Promise<JournalHeader> {
  let first = '';
  try {
    for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 16 * 1024 })) {
      first += chunk as string;
      if (first.includes('\n') || first.length > 1024 * 1024) break;
    }
  } catch (err) {
    throw usageError(`${named}: cannot read it: ${fsReason(err, 'read')}`);
  }
  const nl = first.indexOf('\n');
  let header: Partial<JournalHeader> | undefined;
  try {
    header = JSON.parse(nl === -1 ? first : first.slice(0, nl)) as Partial<JournalHeader>;
  } catch {
    header = undefined;
  }
  if (nl === -1 || header?.mailroom !== 'batch-journal' || header.v !== 1 || typeof header.runId !== 'string') {
    throw usageError(`${named}: not a mailroom batch journal`);
  }
  return header as JournalHeader;
}

export interface LoadedJournal {
  header: JournalHeader;
  done: DoneSet;
  /** Input hashes by entry index (see CheckpointRecord). */
  checkpoints: Map<number, string>;
  /** Bytes up to the end of the last complete record: the rest is a torn write to cut. */
  validBytes: number;
  /** The last record is an EndRecord: its run left nothing unsent. */
  finished?: EndRecord;
}

/**
 * Reads a journal line by line (memory holds one line and the DoneSet), handing each record to
 * `onRecord` (to rewrite the report). A last line without its newline or not parseable is a write
 * torn by a kill: ignored and cut. A bad line anywhere else means the file is not ours. `named` is
 * how messages name the file.
 */
export async function loadJournal(path: string, onRecord: (record: OkRecord | FailRecord) => void, named: string = path): Promise<LoadedJournal> {
  const done = new DoneSet();
  const checkpoints = new Map<number, string>();
  let header: JournalHeader | undefined;
  let finished: EndRecord | undefined;
  let validBytes = 0;
  let lineNo = 0;
  let pendingError: string | undefined;
  let rest = Buffer.alloc(0);
  const handle = (raw: Buffer) => {
    lineNo += 1;
    if (pendingError) throw usageError(`${named}: line ${lineNo - 1} is damaged (${pendingError}); this is not a journal mailroom can resume`);
    let record: unknown;
    try {
      record = JSON.parse(raw.toString('utf8'));
    } catch (err) {
      pendingError = err instanceof Error ? err.message : String(err);
      return;
    }
    if (!header) {
      const h = record as Partial<JournalHeader>;
      if (h.mailroom !== 'batch-journal' || h.v !== 1 || typeof h.runId !== 'string') {
        throw usageError(`${named}: not a mailroom batch journal`);
      }
      header = h as JournalHeader;
    } else if (isOk(record)) {
      finished = undefined;
      for (const [index, , , hash] of record.ok) done.mark(index, DONE_OK, hash);
      onRecord(record);
    } else if (isFail(record)) {
      finished = undefined;
      done.mark(record.fail, DONE_FAILED, record.h);
      onRecord(record);
    } else if (isCheckpoint(record)) {
      finished = undefined;
      checkpoints.set(record.upTo, record.sha);
    } else if (isEnd(record)) {
      finished = record;
    } else {
      pendingError = 'unknown record';
      return;
    }
    validBytes += raw.length + 1;
  };
  let stream;
  try {
    stream = createReadStream(path);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let buf = rest.length ? Buffer.concat([rest, chunk]) : chunk;
      let nl = buf.indexOf(0x0a);
      while (nl !== -1) {
        handle(buf.subarray(0, nl));
        buf = buf.subarray(nl + 1);
        nl = buf.indexOf(0x0a);
      }
      rest = Buffer.from(buf);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code) throw usageError(`${named}: cannot read it: ${fsReason(err)}`);
    throw err;
  }
  // A torn last line (no newline, or a partial record) is dropped: its request is resent.
  if (!header) throw usageError(`${named}: the journal has no header line; it is not a journal mailroom can resume`);
  return finished ? { header, done, checkpoints, validBytes, finished } : { header, done, checkpoints, validBytes };
}

function isEnd(r: unknown): r is EndRecord {
  return typeof r === 'object' && r !== null && typeof (r as EndRecord).finished === 'string' && typeof (r as EndRecord).total === 'number';
}

function isOk(r: unknown): r is OkRecord {
  return typeof r === 'object' && r !== null && Array.isArray((r as OkRecord).ok);
}

function isCheckpoint(r: unknown): r is CheckpointRecord {
  return typeof r === 'object' && r !== null && typeof (r as CheckpointRecord).upTo === 'number' && typeof (r as CheckpointRecord).sha === 'string';
}

function isFail(r: unknown): r is FailRecord {
  return typeof r === 'object' && r !== null && typeof (r as FailRecord).fail === 'number';
}
