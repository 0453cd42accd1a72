import { closeSync, openSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { writeTextSync } from '../output/files.js';
import { storageError, usageError, type MailroomError } from '../errors.js';
import { fsReason } from '../files.js';

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

  constructor(
    readonly path: string,
    flag: string,
    stdout?: Writable,
  ) {
    if (stdout) {
      this.stream = stdout;
      return;
    }
    try {
      this.fd = openSync(path, 'w', 0o600);
    } catch (err) {
      throw usageError(`${flag}: cannot write ${path}: ${fsReason(err, 'write')}`);
    }
  }

  write(value: unknown): void {
    this.buffer += `${JSON.stringify(value)}\n`;
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
      try {
        writeTextSync(this.fd, text);
      } catch (err) {
        // A full disk: this file is now incomplete (a resume rewrites it whole); say so once, stop writing.
        this.failure = storageError(this.path, err);
        throw this.failure;
      }
    }
  }

  close(): void {
    if (this.stream) return this.flush();
    if (this.fd < 0) return;
    try {
      if (!this.failure) this.flush();
    } finally {
      closeSync(this.fd);
      this.fd = -1;
    }
  }
}

/**
 * A failed entry as `--failed` writes it: the email as it would be sent, plus `_index`, `_line` and
 * `_error`. The reader drops fields starting with `_`, so the file can be fed straight back in.
 */
export function failedLine(entry: Record<string, unknown> | undefined, index: number, line: number, error: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...entry };
  out._index = index;
  out._line = line;
  out._error = error;
  return out;
}
