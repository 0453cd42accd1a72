import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

interface Waiter {
  upTo: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * An append-only file of lines, made durable with group commit: lines appended while a write is
 * on its way go together in the next write, each write followed by one fdatasync, so concurrent
 * requests share the cost of a flush. `durable()` resolves once every line appended so far is on
 * disk. After a failed write the journal refuses everything: a torn line may end the file, and
 * nothing may follow it.
 */
export class Journal {
  private fd: FileHandle | undefined;
  private pending: string[] = [];
  private appended = 0;
  private synced = 0;
  private waiters: Waiter[] = [];
  private running = false;
  private failure: Error | undefined;
  private closing: Promise<void> | undefined;
  /** Bytes appended (for the caller's compaction policy). */
  bytes = 0;

  constructor(readonly file: string) {}

  append(line: string): void {
    if (this.closing) throw new Error(`journal ${this.file} is closed`);
    // Broken: every durable() rejects from now on; nothing is kept for a write that will not come.
    if (this.failure) return;
    this.pending.push(line);
    this.appended += 1;
    this.bytes += line.length + 1;
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
      await this.fd?.close();
      this.fd = undefined;
    })();
    return this.closing;
  }

  private kick(): void {
    if (this.running || this.failure) return;
    this.running = true;
    // Next turn of the event loop: requests whose bodies arrive together share one write.
    setImmediate(() => void this.drain());
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const lines = this.pending;
        const upTo = this.appended;
        this.pending = [];
        if (!this.fd) {
          this.fd = await open(this.file, 'a', 0o600);
          await syncDirectory(dirname(this.file));
        }
        await this.fd.appendFile(`${lines.join('\n')}\n`);
        await this.fd.datasync();
        this.synced = upTo;
        const done = this.waiters.filter((w) => w.upTo <= upTo);
        this.waiters = this.waiters.filter((w) => w.upTo > upTo);
        for (const w of done) w.resolve();
      }
    } catch (err) {
      this.failure = err as Error;
      for (const w of this.waiters) w.reject(this.failure);
      this.waiters = [];
      this.pending = [];
    } finally {
      this.running = false;
    }
  }
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
