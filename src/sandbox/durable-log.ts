import { close, fdatasync, open as openFile, writeSync, writevSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';

interface Waiter {
  upTo: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

/** How many flushes may be under way at once (each one covering every write before it). */
const MAX_SYNCS_IN_FLIGHT = 4;

/**
 * An append-only file of lines, made durable with group commit: lines appended while a write is
 * on its way go together in the next write, each write followed by one fdatasync, so concurrent
 * requests share the cost of a flush. A write does not wait for the flush of the one before it:
 * while a flush is under way the next lines are written and flushed too (the disk may merge the
 * flushes), so a request that comes during a flush waits for one flush, not for the end of that
 * one and all of the next. A flush covers every write that ended before it began; `durable()`
 * resolves once every line appended so far is covered by a flush that ended. After a failed write
 * or flush the journal refuses everything: a torn line may end the file, and nothing may follow it.
 *
 * The write itself is synchronous: it only copies the lines into the page cache (tens of
 * microseconds for a turn's requests), while a write through the thread pool came back up to a
 * millisecond later on a busy machine, and every answer of the turn waited for it. The flush, the
 * part that waits for the disk, runs in the thread pool.
 */
export class Journal {
  private fd: number | undefined;
  private pending: (string | readonly (string | Buffer)[])[] = [];
  private appended = 0;
  private synced = 0;
  private waiters: Waiter[] = [];
  private writing = false;
  private readonly syncs = new Set<Promise<void>>();
  private failure: Error | undefined;
  private closing: Promise<void> | undefined;
  /** Bytes appended (for the caller's compaction policy). */
  bytes = 0;

  constructor(readonly file: string) {}

  /** A line, whole or in pieces (written one after the other: a Buffer as it is). */
  append(line: string | readonly (string | Buffer)[]): void {
    if (this.closing) throw new Error(`journal ${this.file} is closed`);
    // Broken: every durable() rejects from now on; nothing is kept for a write that will not come.
    if (this.failure) return;
    this.pending.push(line);
    this.appended += 1;
    if (typeof line === 'string') this.bytes += line.length + 1;
    else for (const piece of line) this.bytes += piece.length;
    this.kick();
  }

  /** Resolves when every line appended so far is on disk; rejects if writing failed. */
  durable(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.synced >= this.appended) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ upTo: this.appended, resolve, reject }));
  }

  /** Writes what is pending, then closes the file. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.durable().catch(() => undefined);
      while (this.syncs.size > 0) await Promise.allSettled([...this.syncs]);
      const fd = this.fd;
      this.fd = undefined;
      if (fd !== undefined) await new Promise<void>((resolve, reject) => close(fd, (err) => (err ? reject(err) : resolve())));
    })();
    return this.closing;
  }

  private kick(): void {
    if (this.writing || this.failure) return;
    this.writing = true;
    // Next turn of the event loop: requests whose bodies arrive together share one write.
    setImmediate(() => void this.writeAll());
  }

  private async writeAll(): Promise<void> {
    try {
      while (this.pending.length > 0 && !this.failure) {
        if (this.syncs.size >= MAX_SYNCS_IN_FLIGHT) {
          await Promise.race(this.syncs);
          continue;
        }
        const lines = this.pending;
        const upTo = this.appended;
        this.pending = [];
        if (this.fd === undefined) {
          this.fd = await new Promise<number>((resolve, reject) => openFile(this.file, 'a', 0o600, (err, fd) => (err ? reject(err) : resolve(fd))));
          await syncDirectory(dirname(this.file));
        }
        appendAll(this.fd, bytesOf(lines));
        this.flush(this.fd, upTo);
      }
    } catch (err) {
      this.fail(err as Error);
    } finally {
      this.writing = false;
    }
  }

  /** A flush of every write so far: the lines up to `upTo` are durable once it ends. */
  private flush(fd: number, upTo: number): void {
    const sync: Promise<void> = new Promise<void>((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve()))).then(
      () => {
        this.syncs.delete(sync);
        if (this.failure) return;
        if (upTo > this.synced) this.synced = upTo;
        const done = this.waiters.filter((w) => w.upTo <= this.synced);
        if (done.length === 0) return;
        this.waiters = this.waiters.filter((w) => w.upTo > this.synced);
        for (const w of done) w.resolve();
      },
      (err: Error) => {
        this.syncs.delete(sync);
        this.fail(err);
      },
    );
    this.syncs.add(sync);
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.waiters) w.reject(this.failure);
    this.waiters = [];
    this.pending = [];
  }
}

/** The bytes of lines: consecutive strings encoded together, a Buffer as it is. */
function bytesOf(lines: readonly (string | readonly (string | Buffer)[])[]): Buffer[] {
  const out: Buffer[] = [];
  let text = '';
  for (const line of lines) {
    if (typeof line === 'string') {
      text += `${line}\n`;
      continue;
    }
    for (const piece of line) {
      if (typeof piece === 'string') text += piece;
      else {
        if (text !== '') out.push(Buffer.from(text));
        text = '';
        out.push(piece);
      }
    }
    text += '\n';
  }
  if (text !== '') out.push(Buffer.from(text));
  return out;
}

/** Appends every byte of `buffers` (a short write goes on from where it stopped). */
function appendAll(fd: number, buffers: Buffer[]): void {
  let total = 0;
  for (const b of buffers) total += b.length;
  let written = writevSync(fd, buffers);
  if (written === total) return;
  const rest = Buffer.concat(buffers, total);
  while (written < total) written += writeSync(fd, rest, written, total - written);
}

/** Makes a file's creation or a rename in `dir` durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
