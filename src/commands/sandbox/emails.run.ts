import type { CommandContext } from '../context.js';
import type { SandboxEmail } from '../../sandbox/public-types.js';
import { sandboxWorkspace, unknownWorkspace } from '../../api/sandbox-admin.js';
import { printRows } from '../../output/index.js';
import { defaultListLimit, listNote, outputMode } from '../../output/mode.js';
import { paths } from '../../api/paths.js';

export interface SandboxEmailsOptions {
  to?: string;
  search?: string;
  status?: string;
  last?: number;
  all?: boolean;
}

export async function run(flags: SandboxEmailsOptions, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  const admin = await ctx.sandboxAdmin();
  const root = admin.root;
  const query = new URLSearchParams();
  const workspace = sandboxWorkspace(ctx.settings());
  if (workspace !== undefined) query.set('workspace', workspace);
  if (flags.to !== undefined) query.set('to', flags.to);
  if (flags.search !== undefined) query.set('q', flags.search);
  if (flags.status !== undefined) query.set('status', flags.status);
  const limit = defaultListLimit(outputMode(ctx, globals), { all: flags.all, count: flags.last });
  if (limit !== undefined) query.set('limit', String(limit));
  const { status, body } = await admin.call('GET', paths.sandboxEmails(query));
  if (status === 404) throw unknownWorkspace(root, workspace);
  const { items, total } = body as { items: SandboxEmail[]; total: number };
  const table = await printRows(
    ctx,
    globals,
    items,
    [
      { header: 'ID', value: (e) => e.id },
      { header: 'STATUS', value: (e) => e.status },
      { header: 'TO', value: (e) => e.to, kind: 'text' },
      { header: 'SUBJECT', value: (e) => e.subject ?? `(template ${e.template})`, kind: 'text' },
      { header: 'CREATED', value: (e) => e.createdAt, kind: 'date' },
    ],
    { empty: 'no emails', page: { hasMore: items.length < total, total } },
  );
  const note = table ? listNote(items.length, total, { byDefault: flags.last === undefined, countFlag: '--last' }) : undefined;
  if (note) ctx.io.err.write(note);
}
