import type { Command } from 'commander';
import type { Context } from '../context.js';
import type { Globals } from '../context.js';

export interface ProfileView {
  name: string;
  active: boolean;
  apiKey?: string;
  baseUrl?: string;
  workspace?: string;
}

export function register(parent: Command, ctx: Context): void {
  parent
    .command('profiles')
    .description('list stored profiles and mark the active one (--profile, MAILROOM_PROFILE, else "default")')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom profiles
  $ MAILROOM_PROFILE=ci mailroom profiles --json`,
    )
    .action(async (_opts: unknown, cmd: Command) => {
      await run(ctx, cmd.optsWithGlobals<Globals>());
    });
}

export async function run(ctx: Context, globals: Globals): Promise<void> {
  const [{ resolveSettings }, { readStoredConfig }, output] = await Promise.all([
    import('../config/settings.js'),
    import('../config/file.js'),
    import('../output/index.js'),
  ]);
  const settings = resolveSettings(ctx, globals);
  const active = settings.profile.value;
  const rows: ProfileView[] = Object.entries(readStoredConfig(settings.configFile).profiles)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, p]) => ({
      name,
      active: name === active,
      ...(p.apiKey ? { apiKey: output.mask(p.apiKey) } : {}),
      ...(p.baseUrl ? { baseUrl: p.baseUrl } : {}),
      ...(p.workspace ? { workspace: p.workspace } : {}),
    }));
  const mode = output.outputMode(ctx, globals);
  if (mode.quiet) return;
  if (mode.format === 'json') return output.printJson(ctx, rows);
  await output.printTable(
    ctx,
    rows,
    [
      { header: '', value: (r) => (r.active ? '*' : ' ') },
      { header: 'PROFILE', value: (r) => r.name },
      { header: 'KEY', value: (r) => r.apiKey },
      { header: 'API', value: (r) => r.baseUrl ?? '(default)', kind: 'text' },
      { header: 'WORKSPACE', value: (r) => r.workspace },
    ],
    'no stored profiles: run `mailroom login` to create one',
  );
  if (rows.length > 0 && !rows.some((r) => r.active)) ctx.io.err.write(`note: the active profile "${active}" is not stored yet\n`);
}
