import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirectory } from '../files.js';
import { JournalLock, lockHolder } from '../output/lock.js';
import { firstRequestsOf, sameMomentRefusal, type SameMoment } from './earlier-runs.js';
import { prefixDigest, type ApiIdentity, type CheckpointRecord } from './journal.js';

// Two new runs of the same entries started at the same moment both find no journal of the other
// before they start reading. So before its first request a new run takes a claim in the state
// directory, looks again at the journals there, and writes its first checkpoint (the one later runs
// compare with) before letting go: of two such runs, the second to hold the claim finds the first's
// checkpoint, and is refused. The claim is held only that long, never while sending.

/** How long a run waits for another run's claim, which is held for one directory listing and one write. */
const CLAIM_WAIT_MS = 10_000;

const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS']);

export interface FirstRequestClaim extends SameMoment {
  /** The state directory's journals. */
  dir: string;
  api: ApiIdentity;
  /** This run's: its own journal is not another run. */
  runId: string;
  newRun: boolean;
  /** Run ids of the journals the check before reading compared with (same-entries.ts): refused then, or let through on purpose. */
  seen: ReadonlySet<string>;
}

/**
 * The claim's path (without its `.lock`): named by the host, the key's fingerprint (never the key)
 * and the hash of the first entry, which every run whose first request could be another's shares.
 */
export const claimPath = (dir: string, api: Pick<ApiIdentity, 'baseUrl' | 'key'>, firstEntry: string): string =>
  join(dir, `first-${createHash('sha256').update(JSON.stringify([api.baseUrl, api.key, firstEntry])).digest('hex').slice(0, 32)}`);

/**
 * Under the claim, refuses the run when another journal's first request is the start of this one's
 * (`mark`, with `digestAt` the running hash after each entry before it), or this one's is the start
 * of that one's (by its prefix list, in journals that have one), and that run is sending it
 * now, or appeared since the check before reading (unless `newRun`); otherwise `publish`es this
 * run's first checkpoint. A claim left by a killed process (its pid gone) is taken over.
 */
export function claimFirstRequest(c: FirstRequestClaim, mark: CheckpointRecord, digestAt: (index: number) => string | undefined, publish: () => void): void {
  try {
    makeDirectory(c.dir, 0o700);
  } catch {
    // A state directory that cannot be written holds no journal to compare with either.
    publish();
    return;
  }
  let claim: JournalLock;
  try {
    claim = JournalLock.acquire(claimPath(c.dir, c.api, digestAt(0) ?? mark.sha), {
      subject: `${c.label}: the first request`,
      holder: 'another mailroom batch starting with the same entries',
      createDir: false,
      waitMs: CLAIM_WAIT_MS,
    });
  } catch (err) {
    if (!UNWRITABLE.has((err as { cause?: NodeJS.ErrnoException }).cause?.code ?? '')) throw err;
    publish();
    return;
  }
  try {
    for (const run of firstRequestsOf(c.dir, c.api)) {
      if (run.header.runId === c.runId) continue;
      // Either first request may be the start of the other: the shorter one's entries would go out twice.
      const same =
        run.upTo === mark.upTo ? run.sha === mark.sha : run.upTo < mark.upTo ? digestAt(run.upTo) === run.sha : run.prefix?.[mark.upTo] === prefixDigest(mark.sha);
      if (!same) continue;
      let path: string;
      try {
        path = realpathSync(run.path);
      } catch {
        continue;
      }
      const sending = lockHolder(path);
      if (sending || (!c.newRun && !c.seen.has(run.header.runId))) throw sameMomentRefusal(c, path, run.header, sending);
    }
    publish();
  } finally {
    claim.release();
  }
}
