import type { CommandContext } from '../client.js';
import { storedProfile } from '../config/file.js';
import { keyVariable } from '../config/settings.js';
import { openStore } from '../config/store.js';
import { outputMode, printJson } from '../output/index.js';

/** Removes the key; a profile left with nothing in it goes too. Logging out twice is not an error. */
export async function run(_opts: Record<string, never>, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  const profile = ctx.settings().profile.value;
  const store = await openStore(ctx.env);
  const stored = storedProfile(store.read(), profile);
  const had = stored?.apiKey !== undefined;
  if (stored) {
    if (stored.baseUrl === undefined && stored.workspace === undefined) store.deleteProfile(profile);
    else store.updateProfile(profile, { apiKey: undefined });
  }
  const mode = outputMode(ctx, globals);
  if (mode.quiet) return;
  if (mode.format === 'json') printJson(ctx, { profile, removed: had });
  else ctx.io.err.write(had ? `Logged out of profile "${profile}": its key was removed from ${store.path}.\n` : `Profile "${profile}" has no stored key; nothing to do.\n`);
  const envKey = keyVariable(ctx.env);
  if (envKey) {
    // Under --profile the variable is not read (docs/configuration.md); without it, it is.
    const where = ctx.settings().profile.source === 'flag' ? ': commands without --profile keep using it.' : ' and will keep being used.';
    ctx.io.err.write(`note: ${envKey} is still set in this environment${where}\n`);
  }
}
