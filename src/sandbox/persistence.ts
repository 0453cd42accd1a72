import { constants } from 'node:fs';
import { access, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import * as z from 'zod';
import { JournalLock } from '../output/lock.js';
import { fsReason } from '../files.js';
import { SandboxConfigError } from './config.js';
import { Journal, syncDirectory } from './durable-log.js';
import { contact, count, decodeLine, delivery, emailResult, encodeChange, restoreText, storedEmail, storedKey, storedWebhook, str, tallyRow, type JournaledChange } from './journal-lines.js';
import { DEFAULT_RETAIN, SandboxState, type Change, type Snapshot } from './state.js';

/** What the sandbox reads back of a workspace: every field a request, the inbox or the scheduler relies on. */
const workspaceSchema = z.looseObject({
  workspace: z.looseObject({ id: str, name: str }),
  primaryKeyId: str,
  keys: z.array(storedKey),
  webhooks: z.array(storedWebhook),
  emails: z.array(storedEmail),
  contacts: z.array(contact),
  deliveries: z.array(delivery),
  idempotency: z.array(z.tuple([str, emailResult])),
  sentThisMonth: z.looseObject({ month: str, count: z.number().int().nonnegative() }),
  totals: z
    .looseObject({
      emails: z.looseObject({ SENT: tallyRow, SCHEDULED: tallyRow }),
      deliveries: count,
      dropped: count.optional(),
      droppedScheduled: z.array(str),
    })
    .optional(),
});

const snapshotSchema = workspaceSchema.extend({
  version: z.literal(1),
  journal: z.number().int().nonnegative().optional(),
  workspaces: z.array(workspaceSchema).optional(),
});

/** Reads a `--data` file; a missing file is a fresh start, anything unreadable is an error. */
export async function loadSnapshot(file: string): Promise<Snapshot | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SandboxConfigError(`cannot read data file ${file}: ${fsReason(err, 'read')}`);
  }
  let snap: unknown;
  try {
    snap = JSON.parse(text);
  } catch {
    throw new SandboxConfigError(`data file ${file} is not valid JSON`);
  }
  if (!snapshotSchema.safeParse(snap).success) throw new SandboxConfigError(`data file ${file} is not a mailroom sandbox data file`);
  for (const ws of [snap as Snapshot, ...((snap as Snapshot).workspaces ?? [])]) ws.emails = ws.emails.map(restoreText);
  return snap as Snapshot;
}

/** The changes of one journal file. A torn last line (a write the process died in) was never acknowledged: it is dropped. */
export async function readJournal(file: string): Promise<JournaledChange[]> {
  const text = await readFile(file, 'utf8');
  const lines = text.split('\n');
  const torn = lines.pop();
  const changes: JournaledChange[] = [];
  const parse = decodeLine;
  lines.forEach((line, i) => {
    const change = parse(line);
    if (!change) throw new SandboxConfigError(`data journal ${file} is damaged at line ${i + 1}`);
    changes.push(change);
  });
  if (torn !== undefined && torn !== '') {
    const change = parse(torn);
    if (change) changes.push(change);
  }
  return changes;
}

/** What belongs to a `--data` file in its directory: its journals (`<file>.journal-<n>`) and temp files. */
async function companions(file: string): Promise<{ journals: { seq: number; path: string }[]; temps: string[] }> {
  const dir = dirname(file);
  const base = basename(file);
  const journals: { seq: number; path: string }[] = [];
  const temps: string[] = [];
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return { journals, temps };
  }
  for (const name of names) {
    if (!name.startsWith(`${base}.`)) continue;
    const rest = name.slice(base.length + 1);
    const m = /^journal-(\d+)$/.exec(rest);
    if (m) journals.push({ seq: Number(m[1]), path: join(dir, name) });
    else if (/^\d+\.tmp$/.test(rest)) temps.push(join(dir, name));
  }
  journals.sort((a, b) => a.seq - b.seq);
  return { journals, temps };
}

/**
 * The journal is compacted into a new snapshot once it outgrows both this and four times the last
 * snapshot: a snapshot is written whole on the event loop (a retained inbox of 10,000 emails is
 * about 8 MiB of JSON, tens of milliseconds), so under a steady load its cost per change falls with
 * the factor, while a start after a crash replays at most about that much journal.
 */
export const COMPACT_MIN_BYTES = 16 * 1024 * 1024;
const JOURNAL_PER_SNAPSHOT = 4;
/**
 * A request kept as its body (journal-lines.ts) is about half the bytes its emails take as email
 * lines, but replaying an email costs about the same from either: for the policy above, each of its
 * emails also counts the bytes an email line holds beyond the request's entry (ids, status, time,
 * settings, field names), so that a start after a crash replays no more emails than before.
 */
const EMAIL_LINE_EXTRA = 256;

/**
 * `--data`: the state as a snapshot file plus an append-only journal of the changes since.
 * Every change is appended as it happens; `durable()` resolves once all of them are on disk (the
 * server awaits it before any 2xx answer leaves), so a SIGKILL loses nothing acknowledged. When the
 * journal outgrows the snapshot (COMPACT_MIN_BYTES), a new snapshot is written in the background (temp file, fsync,
 * rename) and the journals it covers are deleted; on close, one last snapshot holds everything.
 */
export class Persistence {
  private journal: Journal;
  private older: Journal[] = [];
  private compacting: Promise<void> | undefined;
  private snapshotBytes = 0;
  /** What the current journal's requests kept as bodies count beyond their bytes (EMAIL_LINE_EXTRA). */
  private extra = 0;
  private started = false;
  private closed = false;

  private constructor(
    private readonly file: string,
    private readonly state: SandboxState,
    /** The workspaces made with `POST /_sandbox/workspaces`, by id, in the order they were made. */
    private readonly made: Map<string, SandboxState>,
    private seq: number,
    private readonly onError: (err: Error) => void,
    private readonly compactBytes: number,
    private readonly lock: JournalLock,
  ) {
    this.journal = new Journal(this.journalPath(seq));
  }

  /**
   * Loads the snapshot and replays its journals; removes temp files left by a crash. `fresh` makes
   * the state when there is no data file yet; `retain` is the state's (state.ts). Call `start()` before serving.
   */
  static async open(file: string, fresh: () => SandboxState, onError: (err: Error) => void, compactBytes = COMPACT_MIN_BYTES, retain = DEFAULT_RETAIN): Promise<Persistence> {
    await access(dirname(file), constants.W_OK).catch((err: NodeJS.ErrnoException) => {
      throw new SandboxConfigError(`cannot write data file ${file}: ${fsReason(err, 'write')}`);
    });
    // One sandbox per file: two would delete each other's journals. A lock whose pid is gone (a kill) is taken over.
    const lock = JournalLock.acquire(file, { subject: `--data ${file}`, holder: 'another mailroom sandbox', createDir: false });
    try {
      const snap = await loadSnapshot(file);
      const { journals, temps } = await companions(file);
      for (const tmp of temps) await rm(tmp, { force: true });
      const state = snap ? SandboxState.fromSnapshot(snap, retain) : fresh();
      const made = new Map((snap?.workspaces ?? []).map((ws) => [ws.workspace.id, SandboxState.fromSnapshot(ws, retain)]));
      const from = snap?.journal;
      // The workspaces a journal deleted: a change of one journaled after its deletion (a request
      // already under way when it was deleted) belongs to nothing and is skipped.
      const deleted = new Set<string>();
      // Journals without a snapshot, or older than it, belong to nothing: start() deletes them.
      if (from !== undefined) {
        for (const j of journals) {
          if (j.seq < from) continue;
          for (const change of await readJournal(j.path)) {
            if (change.t === 'workspace') {
              if (!made.has(change.workspace.id)) made.set(change.workspace.id, new SandboxState(change.workspace, '', retain));
              continue;
            }
            if (change.t === 'workspaceDeleted') {
              if (made.delete(change.id)) deleted.add(change.id);
              continue;
            }
            const target = change.w === undefined ? state : made.get(change.w);
            if (!target && deleted.has(change.w!)) continue;
            if (!target) throw new SandboxConfigError(`data journal ${j.path} names a workspace ${change.w} it never made`);
            target.apply(change);
          }
        }
      }
      const last = journals.at(-1)?.seq ?? 0;
      return new Persistence(file, state, made, Math.max(last, from ?? 0) + 1, onError, compactBytes, lock);
    } catch (err) {
      lock.release();
      throw err;
    }
  }

  /** Gives the file up without writing anything (a start that failed). */
  abandon(): void {
    this.closed = true;
    this.lock.release();
  }

  get current(): SandboxState {
    return this.state;
  }

  /** The workspaces made with `POST /_sandbox/workspaces` that were saved, in the order they were made. */
  get workspaces(): SandboxState[] {
    return [...this.made.values()];
  }

  /** A workspace just made, still without keys: saved from now on, its own changes recorded with its id. */
  addWorkspace(state: SandboxState): void {
    this.made.set(state.workspace.id, state);
    this.record({ t: 'workspace', workspace: state.workspace });
  }

  /**
   * A workspace deleted: journaled, left out of the next snapshot, and none of its changes recorded
   * from now on (a request of its that was already under way when it was deleted).
   */
  removeWorkspace(id: string): void {
    if (this.made.delete(id)) this.record({ t: 'workspaceDeleted', id });
  }

  /** Settles when no compaction is under way (tests). */
  async idle(): Promise<void> {
    while (this.compacting) await this.compacting;
  }

  /** Writes a first snapshot (proving the file writable); then `record` every change. */
  async start(): Promise<void> {
    await this.compact();
    this.started = true;
  }

  /** Resolves once every change so far is on disk. */
  durable(): Promise<void> {
    if (this.older.length === 0) return this.journal.durable();
    return Promise.all([...this.older.map((j) => j.durable()), this.journal.durable()]).then(() => undefined);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      while (this.compacting) await this.compacting;
      await this.compact();
      await this.journal.close();
    } finally {
      this.lock.release();
    }
  }

  /** Appends a change of the first workspace, or of workspace `w`, to the journal; `durable()` tells when it is on disk. */
  record(change: Change, w?: string): void {
    if (!this.started || this.closed || (w !== undefined && !this.made.has(w))) return;
    const line = encodeChange(change, w);
    this.journal.append(line);
    if (typeof line !== 'string' && change.t === 'request') this.extra += EMAIL_LINE_EXTRA * change.emails.length;
    if (!this.compacting && this.journal.bytes + this.extra > Math.max(this.compactBytes, JOURNAL_PER_SNAPSHOT * this.snapshotBytes)) {
      this.compacting = this.compact()
        .catch((err: Error) => this.onError(err))
        .finally(() => {
          this.compacting = undefined;
        });
    }
  }

  private journalPath(seq: number): string {
    return `${this.file}.journal-${seq}`;
  }

  /**
   * The snapshot is taken and the journal switched in the same synchronous step, so every change
   * is either in the snapshot or in the new journal. Until the snapshot is renamed into place, the
   * old journals stay: a crash in between replays them all on top of the old snapshot.
   */
  private async compact(): Promise<void> {
    if (this.journal.bytes > 0) {
      this.older.push(this.journal);
      this.seq += 1;
      this.journal = new Journal(this.journalPath(this.seq));
      this.extra = 0;
    }
    const made = [...this.made.values()].map((ws) => ws.workspaceSnapshot());
    const text = JSON.stringify({ ...this.state.snapshot(), journal: this.seq, ...(made.length > 0 ? { workspaces: made } : {}) });
    const tmp = `${this.file}.${process.pid}.tmp`;
    const handle = await open(tmp, 'w', 0o600);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, this.file);
    await syncDirectory(dirname(this.file));
    this.snapshotBytes = text.length;
    for (const j of this.older.splice(0)) await j.close();
    const { journals } = await companions(this.file);
    for (const j of journals) if (j.seq < this.seq) await rm(j.path, { force: true });
  }
}
