import type { Context, GlobalOptions } from '../../context.js';
import { outputMode, printJson, printKeyValues, printTable, type Column } from '../../output/index.js';
import { redactValue, reveal } from '../../secrets.js';
import type { Webhook } from '../../schema/webhook.js';

const COLUMNS: Column<Webhook>[] = [
  { header: 'ID', value: (w) => w.id },
  { header: 'URL', value: (w) => w.url, kind: 'text' },
  { header: 'EVENTS', value: (w) => w.events.join(', '), kind: 'text' },
  { header: 'STATUS', value: (w) => w.status },
  { header: 'CREATED', value: (w) => w.createdAt, kind: 'date' },
];

export async function printWebhooks(ctx: Context, globals: GlobalOptions, hooks: Webhook[]): Promise<void> {
  const mode = outputMode(ctx, globals);
  if (mode.quiet) return;
  if (mode.format === 'json') printJson(ctx, hooks);
  else await printTable(ctx, hooks, COLUMNS, 'No webhooks.');
}

/** Tokens are signing secrets, masked by the output guard (secrets.ts) except when `webhooks create` returns one (`'new'`). */
export async function printWebhook(ctx: Context, globals: GlobalOptions, hook: Webhook, token: 'new' | 'masked' = 'masked'): Promise<void> {
  if (token === 'new') reveal(hook.token);
  const shown = redactValue(hook, { allowRevealed: true });
  const mode = outputMode(ctx, globals);
  if (mode.quiet) return;
  if (mode.format === 'json') printJson(ctx, shown, { once: token === 'new' });
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
