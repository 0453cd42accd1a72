import type { CommandContext } from './context.js';
import { readStoredConfig } from '../config/file.js';
import * as output from '../output/index.js';
import { notice } from '../output/notice.js';

export interface ProfileView {
  name: string;
  active: boolean;
  apiKey?: string;
  /** Where the key is kept: its masked form is shown only for one in the file (the keychain is not read to list). */
  keyIn?: 'keychain' | 'file';
  baseUrl?: string;
  workspace?: string;
}

export async function run(_opts: Record<string, never>, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  const settings = ctx.settings();
  const active = settings.profile.value;
  const rows: ProfileView[] = Object.entries(readStoredConfig(settings.configFile).profiles)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, p]) => ({
      name,
      active: name === active,
      ...(p.apiKey ? { apiKey: output.mask(p.apiKey), keyIn: 'file' as const } : p.keychain ? { keyIn: 'keychain' as const } : {}),
      ...(p.baseUrl ? { baseUrl: p.baseUrl } : {}),
      ...(p.workspace ? { workspace: p.workspace } : {}),
    }));
  await output.printRows(
    ctx,
    globals,
    rows,
    [
      { header: '', value: (r) => (r.active ? '*' : ' ') },
      { header: 'PROFILE', value: (r) => r.name },
      { header: 'KEY', value: (r) => r.apiKey ?? (r.keyIn === 'keychain' ? '(keychain)' : undefined) },
      { header: 'API', value: (r) => r.baseUrl ?? '(default)', kind: 'text' },
      { header: 'WORKSPACE', value: (r) => r.workspace },
    ],
    { empty: 'no stored profiles: run `mailroom login` to create one' },
  );
  if (rows.length > 0 && !rows.some((r) => r.active)) notice(ctx.io.err, 'note', `the active profile "${active}" is not stored yet`);
}
