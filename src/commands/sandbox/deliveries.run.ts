import type { CommandContext } from '../../client.js';
import { sandboxCall, sandboxRoot } from '../../api/sandbox-admin.js';
import { printRows } from '../../output/index.js';
import { defaultListLimit, listNote, outputMode } from '../../output/mode.js';
import { paths } from '../../api/paths.js';

interface DeliveryRow {
  id?: string;
  event: string;
  url: string;
  attempt: number;
  statusCode?: number;
  error?: string;
  nextRetryAt?: string;
  createdAt: string;
}

export interface SandboxDeliveriesOptions {
  last?: number;
  all?: boolean;
}

export async function run(flags: SandboxDeliveriesOptions, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  const root = sandboxRoot(ctx);
  const { body } = await sandboxCall(root, 'GET', paths.sandboxDeliveries(), ctx);
  const all = (body as { items: DeliveryRow[] }).items;
  const limit = defaultListLimit(outputMode(ctx, globals), { all: flags.all, count: flags.last });
  const items = limit === undefined ? all : all.slice(-limit);
  const table = await printRows(
    ctx,
    globals,
    items,
    [
      { header: 'WHEN', value: (d) => d.createdAt, kind: 'date' },
      { header: 'EVENT', value: (d) => d.event },
      { header: 'URL', value: (d) => d.url, kind: 'text' },
      { header: 'ATTEMPT', value: (d) => d.attempt },
      { header: 'RESULT', value: (d) => (d.error === undefined ? d.statusCode : `${d.error}`), kind: 'text' },
      { header: 'NEXT RETRY', value: (d) => d.nextRetryAt, kind: 'date' },
    ],
    { empty: 'no deliveries' },
  );
  const note = table ? listNote(items.length, all.length, { byDefault: flags.last === undefined, countFlag: '--last' }) : undefined;
  if (note) ctx.io.err.write(note);
}
