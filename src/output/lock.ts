import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { fsReason } from '../files.js';
import { writeTextSync } from './files.js';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { storageError, usageError, ValidationError } from '../errors.js';

export interface LockOwner {
  pid: number;
  host: string;
  startedAt: string;
}

/** A lock file just created and not yet written is only that young: older and empty, it is debris. */
const EMPTY_GRACE_MS = 5_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(path: string): { owner: LockOwner | undefined; text: string } | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    if (typeof o.pid === 'number' && typeof o.host === 'string') return { owner: o as LockOwner, text };
  } catch {
    // Being written, or not ours.
  }
  return { owner: undefined, text };
}

/** How the refusals name the locked file and its holder; the default is `batch --resume`'s. */
export interface LockUse {
  /** The option and file, e.g. `--resume run.journal`. */
  subject: string;
  /** e.g. `another mailroom batch`. */
  holder: string;
  /** Create the file's directory if missing (a batch journal's is); otherwise that fails as ENOENT. */
  createDir: boolean;
  /** Wait up to this long for a live holder to let go (the config store's short writes), instead of refusing at once. */
  waitMs?: number;
  /**
   * Refuse a holder in this same process too (emails.batch called twice with one journal). Without
   * it a lock naming this process is taken over, as the sandbox's tests of a crash in-process need.
   */
  refuseThisProcess?: boolean;
}

/**
 * One run per journal: `<journal>.lock`, created exclusively and holding the owner's pid, for the
 * whole run. A lock whose process is gone (same host) was left by a crash and is taken over.
 * Also one sandbox per `--data` file.
 */
export class JournalLock {
  private constructor(private readonly path: string) {}

  static acquire(journal: string, use: LockUse = { subject: `--resume ${journal}`, holder: 'another mailroom batch', createDir: true }): JournalLock {
    const path = `${journal}.lock`;
    const me: LockOwner = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
    if (use.createDir) {
      try {
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      } catch (err) {
        throw storageError(dirname(path), err);
      }
    }
    const deadline = Date.now() + (use.waitMs ?? 0);
    for (let attempt = 0; attempt < 100 || Date.now() < deadline; attempt++) {
      let fd: number;
      try {
        fd = openSync(path, 'wx', 0o600);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'EEXIST') throw new ValidationError(`${use.subject}: cannot create its lock ${path}: ${fsReason(err, 'write')}`, { cause: err });
        const found = readOwner(path);
        if (!found) continue;
        const { owner, text } = found;
        if (owner === undefined) {
          // Not a lock of ours: left alone. Empty: its owner is writing it, unless that was long ago.
          if (text !== '') throw inUse(use, path, undefined);
          if (Date.now() - mtime(path) < EMPTY_GRACE_MS) {
            pause(5);
            continue;
          }
        } else if (use.refuseThisProcess && owner.host === me.host && owner.pid === process.pid && heldHere.has(path)) {
          // This process holds it (a program's second emails.batch of one journal): waiting here
          // would block the very thread that must release it.
          throw inUse(use, path, owner);
        } else if (owner.host !== me.host || (owner.pid !== process.pid && alive(owner.pid))) {
          if (Date.now() >= deadline) throw inUse(use, path, owner);
          pause(5);
          continue;
        }
        breakStale(path, text);
        continue;
      }
      try {
        writeTextSync(fd, JSON.stringify(me));
      } catch (err) {
        closeSync(fd);
        unlinkQuietly(path);
        throw storageError(path, err);
      }
      closeSync(fd);
      heldHere.add(path);
      return new JournalLock(path);
    }
    throw inUse(use, path, readOwner(path)?.owner);
  }

  release(): void {
    heldHere.delete(this.path);
    unlinkQuietly(this.path);
  }
}

/** True while a live process (or one on another host) holds `<journal>.lock`: a run may be sending it now. */
export function lockHeld(journal: string): boolean {
  const found = readOwner(`${journal}.lock`);
  if (!found) return false;
  if (!found.owner) return found.text !== '' || Date.now() - mtime(`${journal}.lock`) < EMPTY_GRACE_MS;
  return found.owner.host !== hostname() || alive(found.owner.pid);
}

/** The live process (or one on another host) holding `<journal>.lock`, when one does and says who it is. */
export function lockHolder(journal: string): LockOwner | undefined {
  const owner = readOwner(`${journal}.lock`)?.owner;
  return owner && (owner.host !== hostname() || alive(owner.pid)) ? owner : undefined;
}

/**
 * The locks this process holds now: with refuseThisProcess, a lock naming our own pid is a live one
 * only if it is here; otherwise an earlier process that had our pid left it (broken as stale).
 */
const heldHere = new Set<string>();

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Removes a stale lock, under `<lock>.break` so that two runs taking it over at once cannot remove
 * the lock the other one just created: only the file read as stale is removed.
 */
function breakStale(path: string, staleText: string): void {
  const guard = `${path}.break`;
  let fd: number;
  try {
    fd = openSync(guard, 'wx', 0o600);
  } catch {
    // Another run is breaking it (or crashed doing so, long ago): wait, then look again.
    if (Date.now() - mtime(guard) > EMPTY_GRACE_MS) unlinkQuietly(guard);
    pause(5);
    return;
  }
  closeSync(fd);
  try {
    if (readOwner(path)?.text === staleText) unlinkQuietly(path);
  } finally {
    unlinkQuietly(guard);
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function inUse(use: LockUse, lock: string, owner: LockOwner | undefined) {
  const who = owner ? `pid ${owner.pid}${owner.host === hostname() ? '' : ` on ${owner.host}`}, started ${owner.startedAt}` : `lock ${lock}`;
  return usageError(`${use.subject} is in use by ${use.holder} (${who})`, [
    `wait for it to finish or stop it; if no such run exists, remove ${lock}`,
  ]);
}
