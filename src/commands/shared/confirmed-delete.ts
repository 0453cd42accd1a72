import type { CommandContext } from '../../client.js';
import { requireApiKey, requireNamedProfile } from '../../config/settings.js';
import { confirmOrRefuse } from '../../input/confirm.js';
import { printDeletedWithoutAnswer } from '../../output/resources.js';

export interface Deletion<T extends { id: string }> {
  id: string;
  /** 'API key', 'webhook': how the note after a lost answer names it. */
  noun: string;
  /** Asked on a terminal; off a terminal `--yes` is required. */
  question: string;
  yes: boolean | undefined;
  /** The DELETE; `'gone'` when its answer was lost and a retry found the resource already deleted. */
  remove(): Promise<T | 'gone'>;
  print(deleted: T): Promise<void>;
}

/**
 * The one delete flow (keys delete, webhooks delete): credentials are checked before asking (no
 * question that cannot be acted on), then confirm or refuse without --yes, delete, print what was
 * deleted, or note that a lost answer's retry found it gone.
 */
export async function confirmedDelete<T extends { id: string }>(ctx: CommandContext, d: Deletion<T>): Promise<void> {
  const settings = ctx.settings();
  requireNamedProfile(settings);
  requireApiKey(settings);
  await confirmOrRefuse(ctx, d.question, `delete ${d.id}`, d.yes);
  const deleted = await d.remove();
  if (deleted === 'gone') {
    await printDeletedWithoutAnswer(ctx, ctx.globals, d.id, d.noun);
    return;
  }
  await d.print(deleted);
  if (!ctx.globals.quiet && ctx.io.isStdoutTTY && !ctx.globals.json) ctx.io.err.write(`Deleted ${deleted.id}.\n`);
}
