import type { CommandContext } from '../context.js';
import { paths } from '../../api/paths.js';
import { printRows } from '../../output/index.js';

/** Lists a running sandbox's workspaces (GET /_sandbox/workspaces), the first first. */
export async function run(_opts: Record<string, never>, ctx: CommandContext): Promise<void> {
  const { body } = await (await ctx.sandboxAdmin()).call('GET', paths.sandboxWorkspaces());
  const { items } = body as { items: { id: string; name: string; emails: number }[] };
  await printRows(ctx, ctx.globals, items, [
    { header: 'ID', value: (w) => w.id },
    { header: 'NAME', value: (w) => w.name, kind: 'text' },
    { header: 'EMAILS', value: (w) => String(w.emails) },
  ]);
}
