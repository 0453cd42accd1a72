import { readFile, rename, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { SandboxConfigError } from './config.js';
import type { Snapshot } from './state.js';

const str = z.string();
const emailResult = z.looseObject({ id: str, messageId: str, status: z.enum(['SENT', 'SCHEDULED']), to: str, type: z.enum(['raw', 'templated']) });

/** What the sandbox reads back: every field a request, the inbox or the scheduler relies on. */
const snapshotSchema = z.looseObject({
  version: z.literal(1),
  workspace: z.looseObject({ id: str, name: str }),
  primaryKeyId: str,
  keys: z.array(z.looseObject({ id: str, displayName: str, role: str, status: str, secretKey: str, createdAt: z.iso.datetime(), updatedAt: str })),
  webhooks: z.array(z.looseObject({ id: str, url: str, events: z.array(str), token: str, createdAt: str })),
  emails: z.array(
    emailResult
      .extend({ html: str, text: str, settings: z.looseObject({ trackClicks: z.boolean(), trackOpens: z.boolean() }), createdAt: str, sendAt: str.optional() })
      .refine((e) => e.status !== 'SCHEDULED' || !Number.isNaN(Date.parse(e.sendAt ?? ''))),
  ),
  contacts: z.array(z.looseObject({ id: str, email: str, properties: z.record(str, z.unknown()), createdAt: str, updatedAt: str })),
  deliveries: z.array(z.looseObject({ webhookId: str, event: str, url: str, attempt: z.number() })),
  idempotency: z.array(z.tuple([str, emailResult])),
  sentThisMonth: z.looseObject({ month: str, count: z.number().int().nonnegative() }),
});

/** Reads a `--data` file; a missing file is a fresh start, anything unreadable is an error. */
export async function loadSnapshot(file: string): Promise<Snapshot | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SandboxConfigError(`cannot read data file ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let snap: unknown;
  try {
    snap = JSON.parse(text);
  } catch {
    throw new SandboxConfigError(`data file ${file} is not valid JSON`);
  }
  if (!snapshotSchema.safeParse(snap).success) throw new SandboxConfigError(`data file ${file} is not a mailroom sandbox data file`);
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
    this.writing = this.write()
      .catch((err: unknown) => {
        // Not written: the next flush (at the latest, the one on exit) tries again.
        this.dirty = true;
        throw err;
      })
      .finally(() => {
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
