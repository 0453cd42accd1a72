import { lstatSync, readdirSync, realpathSync, statSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { usageError } from '../errors.js';
import { fsReason } from '../files.js';
import { JournalLock, lockHeld } from '../output/lock.js';
import { headerOf, resumeCommand } from './earlier-runs.js';
import type { FailRecord } from './journal.js';
import { loadJournal } from './journal-read.js';

/** What `batch journals` says of one journal: never its key (the header holds only a hash of it). */
export interface JournalFacts {
  /** The journal's own path (a journal kept elsewhere is known in the state directory by a link). */
  journal: string;
  /** The link in the state directory, when the journal lives elsewhere (`--resume <file>`). */
  link: string | null;
  runId: string;
  /** The input's absolute path, or "-" for stdin. */
  input: string;
  host: string | null;
  profile: string | null;
  started: string;
  lastWritten: string;
  /** Emails the API accepted. */
  sent: number;
  /** Emails the API refused (their errors are in `show`). */
  refused: number;
  /** 0 once finished; null while a resume may still send some (how many the journal cannot know). */
  unsent: number | null;
  /** Entries the finished run read (invalid entries and duplicates included). */
  total: number | null;
  finished: boolean;
  finishedAt: string | null;
  /** A live process holds `<journal>.lock`: a run is sending it now. */
  running: boolean;
  /** The command that sends what an unfinished run did not. */
  resume: string | null;
}

export interface RefusedEntry {
  index: number;
  line: number;
  error: string;
  statusCode: number | null;
}

/** A journal the listing could not read: named, with why, and left alone. */
export interface Unreadable {
  path: string;
  reason: string;
}

/** Reads a whole journal (one pass, a line at a time); `refused` collects the API's refusals when given. */
export async function journalFacts(path: string, link: string | null = null, refused?: RefusedEntry[]): Promise<JournalFacts> {
  let sent = 0;
  let refusedCount = 0;
  const loaded = await loadJournal(path, (record) => {
    if ('ok' in record) sent += record.ok.length;
    else {
      refusedCount += 1;
      refused?.push(refusal(record));
    }
  });
  const { header, finished } = loaded;
  return {
    journal: path,
    link,
    runId: header.runId,
    input: header.input,
    host: header.api?.baseUrl ?? null,
    profile: header.api?.profile ?? null,
    started: header.createdAt,
    lastWritten: statSync(path).mtime.toISOString(),
    sent,
    refused: refusedCount,
    unsent: finished ? 0 : null,
    total: finished?.total ?? null,
    finished: finished !== undefined,
    finishedAt: finished?.finished ?? null,
    running: lockHeld(path),
    resume: finished ? null : resumeCommand(header, path),
  };
}

const refusal = (r: FailRecord): RefusedEntry => ({ index: r.fail, line: r.line, error: r.error, statusCode: r.statusCode ?? null });

/**
 * Every journal in the state directory, newest run first: its own `<runId>.journal` files and the
 * links to journals kept elsewhere. A missing directory is an empty list.
 */
export async function listJournals(dir: string): Promise<{ journals: JournalFacts[]; unreadable: Unreadable[] }> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.journal'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { journals: [], unreadable: [] };
    throw usageError(`cannot read the journal directory ${dir}: ${fsReason(err, 'read')}`);
  }
  const journals: JournalFacts[] = [];
  const unreadable: Unreadable[] = [];
  for (const name of names.sort()) {
    const path = join(dir, name);
    let real: string;
    try {
      real = lstatSync(path).isSymbolicLink() ? realpathSync(path) : path;
    } catch {
      unreadable.push({ path, reason: 'a link to a journal that no longer exists' });
      continue;
    }
    if (!headerOf(real)) {
      unreadable.push({ path, reason: 'not a mailroom batch journal' });
      continue;
    }
    try {
      journals.push(await journalFacts(real, real === path ? null : path));
    } catch (err) {
      unreadable.push({ path, reason: err instanceof Error ? err.message.replace(/^--resume \S+: /, '') : String(err) });
    }
  }
  journals.sort((a, b) => b.started.localeCompare(a.started) || a.runId.localeCompare(b.runId));
  return { journals, unreadable };
}

/**
 * The journal `name` stands for: a path (relative to `cwd`) when one exists there, else a run id
 * (`<runId>.journal` in the state directory, or its link), as `batch journals` lists them.
 */
export function findJournal(dir: string, cwd: string, name: string): string {
  if (name === '') throw usageError('batch journals show: the journal is empty: give its path, or the run id that `mailroom batch journals` lists');
  const path = resolve(cwd, name);
  if (exists(path)) return path;
  if (/^[0-9a-f]{12}$/.test(name) && exists(join(dir, `${name}.journal`))) return realpathSync(join(dir, `${name}.journal`));
  throw usageError(`${name}: no such journal (give its path, or the run id that \`mailroom batch journals\` lists)`);
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

export interface PruneChoice {
  /** Only journals last written longer ago than this; undefined: any age. */
  olderThanMs: number | undefined;
  /** Unfinished journals too (never one a run holds). */
  force: boolean;
  dryRun: boolean;
  now: number;
}

export interface PruneResult {
  removed: JournalFacts[];
  /** Unfinished journals of the age asked for, kept (no --force). */
  unfinished: JournalFacts[];
  /** Journals a run is sending now: never removed. */
  running: JournalFacts[];
}

/**
 * Removes finished journals (with `force`, unfinished ones too) last written before the cut-off.
 * Each is removed under its lock, so a run that starts on it meanwhile either holds the lock first
 * (the journal is kept) or finds it gone. A journal kept elsewhere loses only its link here: that
 * file is the user's, named by them.
 */
export async function pruneJournals(dir: string, choice: PruneChoice): Promise<PruneResult & { unreadable: Unreadable[] }> {
  const { journals, unreadable } = await listJournals(dir);
  const result: PruneResult = { removed: [], unfinished: [], running: [] };
  for (const j of journals) {
    if (choice.olderThanMs !== undefined && choice.now - Date.parse(j.lastWritten) < choice.olderThanMs) continue;
    if (j.running) result.running.push(j);
    else if (!j.finished && !choice.force) result.unfinished.push(j);
    else if (choice.dryRun) result.removed.push(j);
    else if (removeJournal(j)) result.removed.push(j);
    else result.running.push({ ...j, running: true });
  }
  return { ...result, unreadable };
}

function removeJournal(j: JournalFacts): boolean {
  if (j.link) {
    unlinkSync(j.link);
    return true;
  }
  let lock: JournalLock;
  try {
    lock = JournalLock.acquire(j.journal, { subject: j.journal, holder: 'a mailroom batch', createDir: false });
  } catch {
    return false;
  }
  try {
    unlinkSync(j.journal);
  } catch (err) {
    throw usageError(`cannot remove the journal ${j.journal}: ${fsReason(err, 'write')}`);
  } finally {
    lock.release();
  }
  return true;
}
