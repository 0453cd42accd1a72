import type { Context, Globals } from '../context.js';
import type { ApiKey } from '../schema/api-key.js';
import type { Webhook } from '../schema/webhook.js';
import { redactValue, reveal } from '../secrets.js';
import { outputMode } from './mode.js';
import { printJson, printKeyValues, printRows, type Column } from './print.js';
import { notice } from './notice.js';

type Pairs = readonly (readonly [string, unknown, 'date'?])[];

/**
 * One resource (a key, a webhook): its secret masked by the output guard (secrets.ts) even if a
 * server sends it in full; `secret: 'new'` only for the moment it is created, its one display.
 */
async function printOne<T extends object>(ctx: Context, globals: Globals, item: T, secretOf: (item: T) => string | null | undefined, pairs: (shown: T) => Pairs, secret: 'new' | 'masked'): Promise<void> {
  if (secret === 'new') reveal(secretOf(item));
  const shown = redactValue(item, { allowRevealed: true });
  const mode = outputMode(ctx, globals);
  if (mode.quiet) return;
  if (mode.format === 'json') printJson(ctx, shown);
  else await printKeyValues(ctx, pairs(shown));
}

const KEY_COLUMNS: Column<ApiKey>[] = [
  { header: 'ID', value: (k) => k.id },
  { header: 'NAME', value: (k) => k.displayName, kind: 'text' },
  { header: 'ROLE', value: (k) => k.role },
  { header: 'STATUS', value: (k) => k.status },
  { header: 'SECRET', value: (k) => k.secretKey },
  { header: 'CREATED', value: (k) => k.createdAt, kind: 'date' },
];

/** A page of keys: JSON keeps its cursor (`startAt`) beside `hasMore`, so that a script can go on. */
export async function printKeys(ctx: Context, globals: Globals, page: { items: ApiKey[]; hasMore: boolean; startAt: string | null | undefined }): Promise<void> {
  await printRows(ctx, globals, page.items, KEY_COLUMNS, { empty: 'No API keys.', page: { hasMore: page.hasMore, startAt: page.startAt ?? null } });
}

export function printKey(ctx: Context, globals: Globals, key: ApiKey, secret: 'new' | 'masked' = 'masked'): Promise<void> {
  return printOne(ctx, globals, key, (k) => k.secretKey, (k) => [
    ['id', k.id],
    ['name', k.displayName],
    ['role', k.role],
    ['status', k.status],
    ['secret', k.secretKey],
    ['created', k.createdAt, 'date'],
    ['updated', k.updatedAt, 'date'],
    ['deleted', deletedMark(k)],
  ], secret);
}

const WEBHOOK_COLUMNS: Column<Webhook>[] = [
  { header: 'ID', value: (w) => w.id },
  { header: 'URL', value: (w) => w.url, kind: 'text' },
  { header: 'EVENTS', value: (w) => w.events.join(', '), kind: 'text' },
  { header: 'STATUS', value: (w) => w.status },
  { header: 'CREATED', value: (w) => w.createdAt, kind: 'date' },
];

export async function printWebhooks(ctx: Context, globals: Globals, page: { items: Webhook[]; hasMore: boolean }): Promise<void> {
  await printRows(ctx, globals, page.items, WEBHOOK_COLUMNS, { empty: 'No webhooks.', page: { hasMore: page.hasMore } });
}

/** Tokens are signing secrets: shown in full only when `webhooks create` returns one (`'new'`). */
export function printWebhook(ctx: Context, globals: Globals, hook: Webhook, token: 'new' | 'masked' = 'masked'): Promise<void> {
  return printOne(ctx, globals, hook, (w) => w.token, (w) => [
    ['id', w.id],
    ['name', w.displayName],
    ['url', w.url],
    ['events', w.events],
    ['token', w.token],
    ['status', w.status],
    ['workspace', w.workspaceId],
    ['created', w.createdAt, 'date'],
    ['updated', w.updatedAt, 'date'],
    ['deleted', deletedMark(w)],
  ], token);
}

/** `yes` for an object a delete returned (shared/confirmed-delete.ts marks it `isDeleted`). */
const deletedMark = (item: object): string | undefined => ((item as { isDeleted?: unknown }).isDeleted === true ? 'yes' : undefined);

/**
 * What a delete prints when its answer was lost and a retry found the resource gone
 * (api/request.ts deleteRequest): only its id is known, and that it is deleted.
 */
export async function printDeletedWithoutAnswer(ctx: Context, globals: Globals, id: string, noun: string): Promise<void> {
  const mode = outputMode(ctx, globals);
  if (mode.quiet) return;
  if (mode.format === 'json') printJson(ctx, { id, isDeleted: true });
  else await printKeyValues(ctx, [['id', id], ['deleted', 'yes']]);
  notice(ctx.io.err, 'note', `the answer to the delete was lost; a retry found ${noun} ${id} already gone, so that delete went through`);
}
