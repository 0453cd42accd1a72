import { chmodSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { stateDir } from '../config/paths.js';
import { usageError } from '../errors.js';
import { fsReason, makeDirectory } from '../files.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Where journals go when `--resume` names none: `MAILROOM_STATE_DIR`, else the XDG state
 * directory (`~/.local/state/mailroom`), since a journal is state worth keeping, not config or cache.
 */
export function batchJournalDir(env: Env): string {
  return join(stateDir(env), 'batches');
}


/**
 * batchJournalDir, created if missing: a journal holds addresses and error messages, so the
 * directories mailroom makes are 0700 (like the config directory), and tightened if an older
 * mailroom left them 0755. A MAILROOM_STATE_DIR itself is the user's choice and left alone.
 */
export function privateStateDir(env: Env, hint = 'set MAILROOM_STATE_DIR, or pass --resume <journal>'): string {
  const dir = batchJournalDir(env);
  try {
    makeDirectory(dir, 0o700);
    for (const own of env.MAILROOM_STATE_DIR ? [dir] : [stateDir(env), dir]) {
      if (process.platform !== 'win32' && statSync(own).mode & 0o077) chmodSync(own, 0o700);
    }
  } catch (err) {
    throw usageError(`cannot create the journal directory ${dir}: ${fsReason(err, 'write')}`, [hint]);
  }
  return dir;
}
