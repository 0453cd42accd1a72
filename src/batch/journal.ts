import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, ftruncateSync, openSync, statSync } from 'node:fs';
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
  /**
   * A new run's first checkpoint only: the running hash after each entry before `upTo` (at most
   * PREFIX_LIMIT, each shortened by prefixDigest), so that a later run whose entries all fall inside
   * this first request is known for a repeat too (same-entries.ts). Journals of earlier versions lack it.
   */
  prefix?: string[];
}

/** Entries of a first request whose running hash its checkpoint lists (a request holds at most 50 valid ones). */
export const PREFIX_LIMIT = 1000;

/**
 * How far into its input a new run's first request may reach and still be compared with earlier
 * runs' first requests: same-entries.ts holds entries back at most this far while the comparison
 * is undecided, and chunks.ts keeps the running hash after each entry up to here.
 */
export const HOLD_LIMIT = 10_000;

/** A checkpoint's hash (32 hex digits) shortened for the prefix list: its first 12 bytes, base64url. */
export const prefixDigest = (sha: string): string => Buffer.from(sha.slice(0, 24), 'hex').toString('base64url');

/**
 * Written last by a run that left nothing unsent (every entry accepted, refused, invalid or a
 * duplicate): `batch journals` tells finished runs from ones a resume would still send.
 */
export interface EndRecord {
  finished: string;
  total: number;
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
  /** A new journal's directory, until its entry for the file is forced to disk with the first sync. */
  private unsyncedDirectory: string | undefined;

  private constructor(
    readonly path: string,
    private fd: number,
    /** Bytes of whole records: a failed write is cut back to here. */
    private size: number,
  ) {}

  /**
   * Starts a journal; `path` must not exist (created exclusively) or be empty (a fresh `--resume` file).
   * The header and the file's directory entry are forced to disk at once, or with `syncLater` by the
   * caller's first sync(), which must come before any idempotency key is used (a new run syncs its
   * first checkpoint before its first request: one fsync instead of two, at every run's start).
   */
  static create(path: string, header: JournalHeader, syncLater = false): Journal {
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
    journal.unsyncedDirectory = dirname(path);
    if (!syncLater) journal.sync();
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
    if (this.unsyncedDirectory !== undefined) {
      syncDirectory(this.unsyncedDirectory);
      this.unsyncedDirectory = undefined;
    }
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
