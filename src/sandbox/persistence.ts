import { readFile, rename, writeFile } from 'node:fs/promises';
import { SandboxConfigError } from './config.js';
import type { Snapshot } from './state.js';

/** Reads a `--data` file; a missing file is a fresh start, anything unreadable is an error. */
export async function loadSnapshot(file: string): Promise<Snapshot | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SandboxConfigError(`cannot read data file ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let snap: Partial<Snapshot>;
  try {
    snap = JSON.parse(text) as Partial<Snapshot>;
  } catch {
    throw new SandboxConfigError(`data file ${file} is not valid JSON`);
  }
  const ok =
    snap?.version === 1 &&
    typeof snap.workspace?.id === 'string' &&
    [snap.keys, snap.webhooks, snap.emails, snap.contacts, snap.deliveries, snap.idempotency].every(Array.isArray) &&
    typeof snap.sentThisMonth?.count === 'number';
  if (!ok) throw new SandboxConfigError(`data file ${file} is not a mailroom sandbox data file`);
  return snap as Snapshot;
}

/**
 * Writes the state to `--data` some milliseconds after a change (changes in between coalesce), as a
 * temp file renamed over the target, so a crash mid-write never leaves a torn file.
 */
export class Persister {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private dirty = false;
  private lastWriteMs = 0;

  constructor(
    private readonly file: string,
    private readonly snapshot: () => Snapshot,
    private readonly onError: (err: Error) => void,
    private readonly debounceMs = 100,
  ) {}

  schedule(): void {
    this.dirty = true;
    if (this.timer) return;
    // A big state (a long load test) takes a while to serialize: wait longer between writes then,
    // so persistence never takes more than a fifth of the process's time.
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch(this.onError);
    }, Math.max(this.debounceMs, this.lastWriteMs * 4));
    this.timer.unref();
  }

  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.writing) await this.writing;
    if (!this.dirty) return;
    this.dirty = false;
    this.writing = this.write().finally(() => {
      this.writing = undefined;
    });
    await this.writing;
  }

  private async write(): Promise<void> {
    const started = Date.now();
    const tmp = `${this.file}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(this.snapshot()), { mode: 0o600 });
    await rename(tmp, this.file);
    this.lastWriteMs = Date.now() - started;
  }
}
