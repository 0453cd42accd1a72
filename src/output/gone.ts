import type { Context, GlobalOptions } from '../context.js';
import { outputMode } from './mode.js';
import { printJson, printKeyValues } from './print.js';

/**
 * What `keys delete` / `webhooks delete` print when the delete's answer was lost and a retry found
 * the resource gone (api/request.ts deleteRequest): only its id is known, and that it is deleted.
 */
export async function printDeletedWithoutAnswer(ctx: Context, globals: GlobalOptions, id: string, noun: string): Promise<void> {
  const mode = outputMode(ctx, globals);
  if (mode.quiet) return;
  if (mode.format === 'json') printJson(ctx, { id, isDeleted: true });
  else await printKeyValues(ctx, [['id', id], ['deleted', 'yes']]);
  ctx.io.err.write(`note: the answer to the delete was lost; a retry found ${noun} ${id} already gone, so that delete went through\n`);
}
