import type { CommandContext } from '../context.js';
import { requireApiKey, requireNamedProfile } from '../../config/settings.js';
import { confirmOrRefuse, refuseWithoutTerminal } from '../../input/confirm.js';
import { printDeletedWithoutAnswer } from '../../output/resources.js';
import { notice } from '../../output/notice.js';

export interface Deletion<T extends { id: string }> {
  id: string;
  /** 'API key', 'webhook': how the note after a lost answer names it. */
  noun: string;
  /**
   * Looks the resource up and words the question (its name and role, whether it is the key in use),
   * as rotate does; asked on a terminal only, and off a terminal `--yes` is required.
   */
  question(): Promise<string>;
  yes: boolean | undefined;
  /** The DELETE; `'gone'` when its answer was lost and a retry found the resource already deleted. */
  remove(): Promise<T | 'gone'>;
  print(deleted: T): Promise<void>;
  /** A warning after a deletion nobody was asked about (`--yes`): the key this command used, say. */
  warnAfter?(deleted: T): string | undefined;
}

/**
 * The one delete flow (keys delete, webhooks delete): credentials are checked before asking (no
 * question that cannot be acted on), off a terminal --yes is required before any request, then
 * the resource is looked up and named in the question, deleted, and what was deleted printed
 * (without its former status, with `isDeleted: true`; or a note that a lost answer's retry found
 * it gone). A declined question exits 2, nothing deleted.
 */
export async function confirmedDelete<T extends { id: string }>(ctx: CommandContext, d: Deletion<T>): Promise<void> {
  const settings = ctx.settings();
  requireNamedProfile(settings);
  requireApiKey(settings);
  refuseWithoutTerminal(ctx, `delete ${d.id}`, d.yes);
  if (!d.yes) await confirmOrRefuse(ctx, await d.question(), `delete ${d.id}`, false);
  const deleted = await d.remove();
  if (deleted === 'gone') {
    await printDeletedWithoutAnswer(ctx, ctx.globals, d.id, d.noun);
    return;
  }
  // The answer holds the object as it was before the delete (`"status": "ACTIVE"`): printed as it is now.
  const { status: _before, ...rest } = deleted as T & { status?: unknown };
  await d.print({ ...rest, isDeleted: true } as unknown as T);
  const warning = d.yes ? d.warnAfter?.(deleted) : undefined;
  if (warning) notice(ctx.io.err, 'warning', warning);
  if (!ctx.globals.quiet && ctx.io.isStdoutTTY && !ctx.globals.json) ctx.io.err.write(`Deleted ${deleted.id}.\n`);
}
