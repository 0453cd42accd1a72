import type { CommandContext } from '../context.js';
import { storedProfile } from '../../config/file.js';
import { saveKey } from '../../config/credentials.js';
import { storageMode } from '../../config/settings.js';
import { openStore, PROFILE_NAME } from '../../config/store.js';
import { usageError } from '../../errors.js';
import { refuseDiscardingSecret } from './secret-once.js';
import { notice } from '../../output/notice.js';

/** What keys create and rotate share: a new secret shown once, or kept in a profile with --save-as. */
export const ONCE_WARNING = 'This is the only time the secret is shown: it cannot be retrieved again. Store it now.';

/** -q or `--json` without secretKey would throw the only copy of the secret away unless --save-as keeps it: refused before anything is sent. */
export function refuseLosingTheSecret(ctx: CommandContext, saveAs: string | undefined): void {
  if (!saveAs) refuseDiscardingSecret({ quiet: ctx.globals.quiet, jsonFields: ctx.jsonFields }, 'secret', 'secretKey', { quiet: 'add --save-as <profile> or drop -q', fields: 'add --save-as <profile>' });
}

/** Profile names are checked before anything is created, so a bad name never strands a new key. */
export function checkProfileName(name: string | undefined): void {
  if (name !== undefined && !PROFILE_NAME.test(name)) throw usageError(`--save-as: "${name}" is not a profile name (letters, digits, _ and -, up to 64)`);
}

/**
 * Stores a new secret in a profile with the base URL and workspace it belongs to; a profile that
 * pointed at another host is moved with it, and a note says so.
 */
export async function saveToProfile(ctx: CommandContext, profile: string, secret: string, workspaceId: string): Promise<void> {
  const store = await openStore(ctx.env);
  const baseUrl = ctx.settings().baseUrl.value;
  const stored = storedProfile(store.read(), profile);
  const was = stored?.baseUrl;
  // The mode of the profile saved to (--save-as), as login's of the profile it logs in to.
  const mode = storageMode(ctx.env, stored, `profile ${profile}`, false);
  saveKey(ctx, store, profile, secret, mode, { baseUrl, workspace: workspaceId }, (line) => ctx.io.err.write(`${line}\n`));
  if (was !== undefined && was !== baseUrl && !ctx.globals.quiet) notice(ctx.io.err, 'note', `profile ${profile}'s base URL is now ${baseUrl} (was ${was})`);
}
