import type { Context, GlobalOptions } from '../../context.js';
import { usageError } from '../../errors.js';
import type { Settings } from '../../config/settings.js';
import type { ApiKey } from '../../schema/api-key.js';
import { hasPrefix } from '../../schema/ids.js';
import { redactValue, reveal } from '../../secrets.js';
import { outputMode, printJson, printKeyValues, printTable, type Column } from '../../output/index.js';

/**
 * The workspace of every keys command, in one line naming where it can come from (a bad-input
 * error is one line), checked for its prefix before anything is sent.
 */
export function workspaceOf(settings: Settings): string {
  const ws = settings.workspace;
  if (!ws) throw usageError('no workspace: pass --workspace <wrk_id>, set MAILROOM_WORKSPACE, or store one in the profile (mailroom config set workspace <wrk_id>)');
  if (!hasPrefix('workspace', ws.value)) throw usageError(`workspace "${ws.value}" (from ${ws.origin}) is not a workspace id: expected wrk_...`);
  return ws.value;
}

const COLUMNS: Column<ApiKey>[] = [
  { header: 'ID', value: (k) => k.id },
  { header: 'NAME', value: (k) => k.displayName, kind: 'text' },
  { header: 'ROLE', value: (k) => k.role },
  { header: 'STATUS', value: (k) => k.status },
  { header: 'SECRET', value: (k) => k.secretKey },
  { header: 'CREATED', value: (k) => k.createdAt, kind: 'date' },
];

/** A page of keys: JSON keeps its paging state (`hasMore`, `startAt`) so that a script can go on. */
export async function printKeys(ctx: Context, globals: GlobalOptions, page: { items: ApiKey[]; hasMore: boolean; startAt: string | null | undefined }): Promise<void> {
  const mode = outputMode(ctx, globals);
  if (mode.quiet) return;
  if (mode.format === 'json') printJson(ctx, { items: page.items, hasMore: page.hasMore, startAt: page.startAt ?? null });
  else await printTable(ctx, page.items, COLUMNS, 'No API keys.');
}

/**
 * One key, its secret masked by the output guard (secrets.ts) even if a server sends it in full;
 * `secret: 'new'` only for the moment a key is created, its one display.
 */
export async function printKey(ctx: Context, globals: GlobalOptions, key: ApiKey, secret: 'new' | 'masked' = 'masked'): Promise<void> {
  if (secret === 'new') reveal(key.secretKey);
  const shown = redactValue(key, { allowRevealed: true });
  const mode = outputMode(ctx, globals);
  if (mode.quiet) return;
  if (mode.format === 'json') printJson(ctx, shown, { once: secret === 'new' });
  else {
    await printKeyValues(ctx, [
      ['id', shown.id],
      ['name', shown.displayName],
      ['role', shown.role],
      ['status', shown.status],
      ['secret', shown.secretKey],
      ['created', shown.createdAt, 'date'],
      ['updated', shown.updatedAt, 'date'],
    ]);
  }
}

/** A key field by the flag that sets it, in validation messages ("name (--name) must not be empty"). */
export const keyFlag = (path: string): string => (path === 'displayName' ? 'name (--name)' : path === 'role' ? 'role (--role)' : path);

export const ONCE_WARNING = 'This is the only time the secret is shown: it cannot be retrieved again. Store it now.';

/** Profile names are checked before anything is created, so a bad name never strands a new key. */
export async function checkProfileName(name: string | undefined): Promise<void> {
  if (name === undefined) return;
  const { PROFILE_NAME } = await import('../../config/store.js');
  if (!PROFILE_NAME.test(name)) throw usageError(`--save-as: "${name}" is not a profile name (letters, digits, _ and -, up to 64)`);
}

/** Stores a new secret in a profile with the base URL and workspace it belongs to. */
export async function saveToProfile(ctx: Context, settings: Settings, profile: string, secret: string, workspaceId: string): Promise<void> {
  const { openStore } = await import('../../config/store.js');
  const store = await openStore(ctx.env);
  store.updateProfile(profile, { apiKey: secret, baseUrl: settings.baseUrl.value, workspace: workspaceId });
}
