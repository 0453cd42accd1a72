import type { CommandContext } from '../context.js';
import { sandboxWorkspace, unknownWorkspace } from '../../api/sandbox-admin.js';
import { printRows } from '../../output/index.js';
import { defaultListLimit, listNote, outputMode } from '../../output/mode.js';
import { relativeTime } from '../../output/relative-time.js';
import { paths } from '../../api/paths.js';
import { figure } from '../../plural.js';
import { notice } from '../../output/notice.js';

interface DeliveryRow {
  id?: string;
  event: string;
  url: string;
  attempt: number;
  statusCode?: number;
  error?: string;
  nextRetryAt?: string;
  createdAt: string;
  notDelivered?: string;
}

function result(d: DeliveryRow): string {
  if (d.notDelivered !== undefined) return `not delivered: ${d.notDelivered}`;
  const outcome = d.error ?? String(d.statusCode);
  return d.nextRetryAt === undefined ? outcome : `${outcome}, retry ${relativeTime(d.nextRetryAt)}`;
}

export interface SandboxDeliveriesOptions {
  last?: number;
  all?: boolean;
}

export async function run(flags: SandboxDeliveriesOptions, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  const admin = await ctx.sandboxAdmin();
  const root = admin.root;
  const workspace = sandboxWorkspace(ctx.settings());
  const { status, body } = await admin.call('GET', paths.sandboxDeliveries(workspace));
  if (status === 404) throw unknownWorkspace(root, workspace);
  const { items: all, dropped = 0 } = body as { items: DeliveryRow[]; dropped?: number };
  const limit = defaultListLimit(outputMode(ctx, globals), { all: flags.all, count: flags.last });
  const items = limit === undefined ? all : all.slice(-limit);
  const table = await printRows(
    ctx,
    globals,
    items,
    [
      { header: 'ID', value: (d) => d.id },
      { header: 'WHEN', value: (d) => d.createdAt, kind: 'date' },
      { header: 'EVENT', value: (d) => d.event },
      { header: 'URL', value: (d) => d.url, kind: 'text' },
      { header: 'TRY', value: (d) => d.attempt },
      // The next retry goes with the result, so that the whole delivery id fits an 80-column line.
      { header: 'RESULT', value: result, kind: 'text' },
    ],
    { empty: 'no deliveries', page: { hasMore: items.length < all.length, total: all.length, dropped } },
  );
  const note = table ? listNote(items.length, all.length, { byDefault: flags.last === undefined, countFlag: '--last' }) : undefined;
  if (note) ctx.io.err.write(note);
  // Never silent: deliveries the sandbox had no room to hold for a receiver that was not answering.
  if (dropped > 0 && !globals.quiet) notice(ctx.io.err, 'note', `${figure(dropped)} ${dropped === 1 ? 'delivery was' : 'deliveries were'} dropped because the delivery queue was full (deliveries.maxQueued in the sandbox's --config)`);
}
