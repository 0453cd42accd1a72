import { usageError } from '../../errors.js';
import type { Settings } from '../../config/settings.js';
import { hasPrefix } from '../../schema/ids.js';

/**
 * The workspace of every keys command, in one line naming where it can come from (a bad-input
 * error is one line), checked for its prefix before anything is sent.
 */
export function workspaceOf(settings: Settings): string {
  const ws = settings.workspace;
  if (!ws) throw usageError('no workspace: pass --workspace <wrk_id>, set MAILROOM_WORKSPACE, or store one in the profile (mailroom config set workspace <wrk_id>)');
  if (!hasPrefix('workspace', ws.value)) throw usageError(`workspace "${ws.value}" (from ${ws.origin}) is not a workspace id: expected wrk_...`);
  return ws.value;
}
