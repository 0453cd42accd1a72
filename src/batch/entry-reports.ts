import { closeSync, constants, fstatSync, ftruncateSync, openSync, unlinkSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { writeTextSync } from '../output/files.js';
import { storageError, usageError, type MailroomError } from '../errors.js';
import { fsReason } from '../files.js';
import { drained } from '../output/drained.js';

/** Where an entry ended up, as `--report` writes it (one line per input entry). */
export interface ReportLine {
  index: number;
  line?: number;
  id?: string;
  status?: string;
  error?: string;
  statusCode?: number;
  /** Not sent: the same idempotencyKey and content as this earlier entry. */
  duplicateOf?: number;
}

const FLUSH_AT = 64 * 1024;

/** An NDJSON file (or stdout, path `-`) written through a small buffer: one write(2) per 64 KiB, not per line. */
export class NdjsonWriter {
  private buffer = '';
  private fd = -1;
  private readonly stream: Writable | undefined;
  private failure: MailroomError | undefined;

  /** The file's old content is still there (`held`): cut on the first write, or never if the run is refused. */
  private begun = true;
  /** Made by this writer: a refused run removes it. */
  private created = false;

  /**
   * `held`: a new run that may yet be refused at its first request (another run of the same entries
   * claimed it first, first-request-claim.ts) leaves the file as it was until `begin`, its first
   * write, or its close.
   */
  constructor(
    readonly path: string,
    flag: string,
    stdout?: Writable,
    held = false,
  ) {
    if (stdout) {
      this.stream = stdout;
      return;
    }
    try {
      if (held) this.openHeld(path);
      else this.fd = openSync(path, 'w', 0o600);
    } catch (err) {
      throw usageError(`${flag}: cannot write ${path}: ${fsReason(err, 'write')}`);
    }
  }

  private openHeld(path: string): void {
    try {
      this.fd = openSync(path, 'wx', 0o600);
      this.created = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      this.fd = openSync(path, constants.O_WRONLY);
      // A device or a pipe (/dev/full, a process substitution) has no old content to keep or cut.
      this.begun = !fstatSync(this.fd).isFile();
    }
  }

  /** Cuts the file's old content: the run goes ahead. */
  begin(): void {
    if (this.begun) return;
    this.begun = true;
    try {
      ftruncateSync(this.fd, 0);
    } catch (err) {
      this.failure = storageError(this.path, err);
      throw this.failure;
    }
  }

  /** The run was refused before its first request: nothing written, the file as it was (none, if it made it). */
  abandon(): void {
    this.buffer = '';
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
    if (this.created) unlinkSync(this.path);
  }

  write(value: unknown): void {
    this.writeText(`${JSON.stringify(value)}\n`);
  }

  writeText(text: string): void {
    this.buffer += text;
    if (this.buffer.length >= FLUSH_AT) this.flush();
  }

  flush(): void {
    if (this.buffer === '') return;
    const text = this.buffer;
    this.buffer = '';
    if (this.failure) throw this.failure;
    // A stream is the command's stdout, guarded like every other (secrets.ts).
    if (this.stream) this.stream.write(text);
    else {
      this.begin();
      try {
        writeTextSync(this.fd, text);
      } catch (err) {
        // A full disk: this file is now incomplete (a resume rewrites it whole); say so once, stop writing.
        this.failure = storageError(this.path, err);
        throw this.failure;
      }
    }
  }

  /**
   * Stdout holding more than it wants (a slow reader): resolves once it has taken it; undefined when
   * nothing waits, and always for a file. The run awaits it between entries (output/drained.ts).
   */
  drained(): Promise<void> | undefined {
    return this.stream ? drained(this.stream) : undefined;
  }

  close(): void {
    if (this.stream) return this.flush();
    if (this.fd < 0) return;
    try {
      if (!this.failure) {
        this.begin();
        this.flush();
      }
    } finally {
      closeSync(this.fd);
      this.fd = -1;
    }
  }
}

/**
 * `--failed`: each failed entry byte for byte as it was read, in the input's format, so that the file
 * can be fixed and sent as a new run with the same flags: NDJSON lines (a line that is not JSON
 * included), the elements of a JSON array, or CSV rows under the input's header row. Why each
 * failed is in `--report` and the summary. An entry with no text of its own (given as objects, not
 * read from a file) is written as JSON by failedLine.
 */
export class FailedEntries {
  private count = 0;
  private format: 'json' | 'ndjson' | 'csv' | undefined;
  private header: string | undefined;
  /** Entries of a resumed run, written from its journal before the input (its format, its CSV header) is read again. */
  private pending: string[] = [];

  constructor(private readonly out: NdjsonWriter) {}

  get path(): string {
    return this.out.path;
  }

  /** The input's format, once it is known: what was added before is written then. */
  start(format: 'json' | 'ndjson' | 'csv'): void {
    this.format = format;
    if (format !== 'csv') this.flushPending();
  }

  /** CSV: the header row as read (every item carries it; the first one counts). */
  setHeader(raw: string | undefined): void {
    if (this.format !== 'csv' || raw === undefined || this.header !== undefined) return;
    this.header = raw;
    this.out.writeText(raw);
    this.flushPending();
  }

  add(raw: string | undefined, fallback: () => Record<string, unknown>): void {
    const text = raw ?? JSON.stringify(fallback());
    if (this.format === undefined || (this.format === 'csv' && this.header === undefined)) this.pending.push(text);
    else this.write(text);
  }

  begin(): void {
    this.out.begin();
  }

  abandon(): void {
    this.out.abandon();
  }

  close(): void {
    this.format ??= 'ndjson';
    this.flushPending();
    if (this.format === 'json') this.out.writeText(this.count === 0 ? '[]\n' : '\n]\n');
    this.out.close();
  }

  private flushPending(): void {
    for (const text of this.pending.splice(0)) this.write(text);
  }

  private write(text: string): void {
    this.count += 1;
    if (this.format === 'json') this.out.writeText(`${this.count === 1 ? '[\n' : ',\n'}${text}`);
    else this.out.writeText(text.endsWith('\n') ? text : `${text}\n`);
  }
}

/**
 * A failed entry given as an object rather than read as text: the email as it would be sent, plus
 * `_index`, `_line` and `_error`. The reader drops fields starting with `_`, so it can be sent again.
 */
export function failedLine(entry: Record<string, unknown> | undefined, index: number, line: number, error: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...entry };
  out._index = index;
  out._line = line;
  out._error = error;
  return out;
}
