import type { Command } from 'commander';
import type { Context } from '../context.js';
import type { Globals } from '../context.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('logout')
    .description('remove the stored API key of a profile (--profile, default "default")')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom logout
  $ mailroom logout --profile ci`,
    )
    .action(async (_opts: unknown, cmd: Command) => {
      await run(ctx, cmd.optsWithGlobals<Globals>());
    });
}

/** Removes the key; a profile left with nothing in it goes too. Logging out twice is not an error. */
export async function run(ctx: Context, globals: Globals): Promise<void> {
  const [{ resolveSettings }, { openStore }] = await Promise.all([import('../config/settings.js'), import('../config/store.js')]);
  const profile = resolveSettings(ctx, globals).profile.value;
  const store = await openStore(ctx.env);
  const stored = store.read().profiles[profile];
  const had = stored?.apiKey !== undefined;
  if (stored) {
    if (stored.baseUrl === undefined && stored.workspace === undefined) store.deleteProfile(profile);
    else store.updateProfile(profile, { apiKey: undefined });
  }
  const { outputMode, printJson } = await import('../output/index.js');
  const mode = outputMode(ctx, globals);
  if (mode.quiet) return;
  if (mode.format === 'json') printJson(ctx, { profile, removed: had });
  else ctx.io.err.write(had ? `Logged out of profile "${profile}": its key was removed from ${store.path}.\n` : `Profile "${profile}" has no stored key; nothing to do.\n`);
  const envKey = ['MAILROOM_API_KEY', 'SMASHSEND_API_KEY'].find((name) => ctx.env[name]);
  if (envKey) ctx.io.err.write(`note: ${envKey} is still set in this environment and will keep being used.\n`);
}
