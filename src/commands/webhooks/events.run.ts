import type { CommandContext } from '../context.js';
import { EVENTS } from '../../schema/events.js';
import * as out from '../../output/index.js';

export async function run(_opts: Record<string, never>, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  const rows = Object.entries(EVENTS).map(([event, meaning]) => ({ event, meaning }));
  await out.printRows(ctx, globals, rows, [{ header: 'EVENT', value: (r) => r.event }, { header: 'MEANING', value: (r) => r.meaning, kind: 'text' }]);
}
