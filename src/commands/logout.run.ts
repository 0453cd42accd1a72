import type { CommandContext } from './context.js';
import { storedProfile } from '../config/file.js';
import { keyLocation, removeKey } from '../config/credentials.js';
import { keyVariable } from '../config/settings.js';
import { openStore } from '../config/store.js';
import { outputMode, printJson } from '../output/index.js';
import { notice } from '../output/notice.js';

/**
 * Removes the key from wherever it is (the keychain, the file); a profile left with nothing in it
 * goes too. Logging out twice is not an error.
 */
export async function run(_opts: Record<string, never>, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  const profile = ctx.settings().profile.value;
  const store = await openStore(ctx.env);
  const where = keyLocation(storedProfile(store.read(), profile));
  const { removed: had, left } = removeKey(ctx, store, profile);
  // The profile no longer points to it, but it could not be deleted: say where it still is.
  if (left !== undefined) notice(ctx.io.err, 'warning', `the system keychain cannot be reached here (${left}): profile "${profile}"'s entry stays in it (service mailroom-cli) until removed there`);
  const mode = outputMode(ctx, globals);
  if (mode.quiet) return;
  if (mode.format === 'json') printJson(ctx, { profile, removed: had, ...(had ? { from: where } : {}) });
  else ctx.io.err.write(had ? `Logged out of profile "${profile}": its key was removed from ${where === 'keychain' ? 'the system keychain' : store.path}.\n` : `Profile "${profile}" has no stored key; nothing to do.\n`);
  const envKey = keyVariable(ctx.env);
  if (envKey) {
    // Under --profile the variable is not read (docs/configuration.md); without it, it is.
    const where = ctx.settings().profile.source === 'flag' ? ': commands without --profile keep using it.' : ' and will keep being used.';
    notice(ctx.io.err, 'note', `${envKey} is still set in this environment${where}`);
  }
}
