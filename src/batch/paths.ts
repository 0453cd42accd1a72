import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where journals go when `--resume` names none: `MAILROOM_STATE_DIR`, else the XDG state
 * directory (`~/.local/state/mailroom`), since a journal is state worth keeping, not config or cache.
 */
export function batchJournalDir(env: Readonly<Record<string, string | undefined>>): string {
  if (env.MAILROOM_STATE_DIR) return join(env.MAILROOM_STATE_DIR, 'batches');
  const base = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  return join(base, 'mailroom', 'batches');
}
