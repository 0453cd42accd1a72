import type { Context, GlobalOptions } from '../../context.js';
import { mask, outputMode, printJson, printKeyValues, printTable, type Column } from '../../output/index.js';
import type { Webhook } from '../../schema/webhook.js';

/** Tokens are signing secrets: masked everywhere except the moment `webhooks create` returns one. */
export function maskWebhook(hook: Webhook): Webhook {
  return typeof hook.token !== 'string' || /[…*]/.test(hook.token) ? hook : { ...hook, token: mask(hook.token) };
}

const COLUMNS: Column<Webhook>[] = [
  { header: 'ID', value: (w) => w.id },
  { header: 'URL', value: (w) => w.url, kind: 'text' },
  { header: 'EVENTS', value: (w) => w.events.join(', '), kind: 'text' },
  { header: 'STATUS', value: (w) => w.status },
  { header: 'CREATED', value: (w) => w.createdAt, kind: 'date' },
];

export async function printWebhooks(ctx: Context, globals: GlobalOptions, hooks: Webhook[]): Promise<void> {
  const masked = hooks.map(maskWebhook);
  const mode = outputMode(ctx, globals);
  if (mode.quiet) return;
  if (mode.format === 'json') printJson(ctx, masked);
  else await printTable(ctx, masked, COLUMNS, 'No webhooks.');
}

export async function printWebhook(ctx: Context, globals: GlobalOptions, hook: Webhook, token: 'full' | 'masked' = 'masked'): Promise<void> {
  const shown = token === 'full' ? hook : maskWebhook(hook);
  const mode = outputMode(ctx, globals);
  if (mode.quiet) return;
  if (mode.format === 'json') printJson(ctx, shown);
  else {
    await printKeyValues(ctx, [
      ['id', shown.id],
      ['name', shown.displayName],
      ['url', shown.url],
      ['events', shown.events],
      ['token', shown.token],
      ['status', shown.status],
      ['workspace', shown.workspaceId],
      ['created', shown.createdAt, 'date'],
      ['updated', shown.updatedAt, 'date'],
    ]);
  }
}
