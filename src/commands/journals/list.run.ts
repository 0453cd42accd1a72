import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandContext } from '../context.js';
import { listJournals, type JournalFacts } from '../../batch/journals.js';
import { batchJournalDir } from '../../batch/paths.js';
import { printRows, type Column } from '../../output/print.js';
import { outputMode } from '../../output/mode.js';
import { oneLine } from '../../output/one-line.js';
import { noteUnreadable } from '../shared/unreadable-journals.js';
import { notice } from '../../output/notice.js';

export const JOURNAL_COLUMNS: Column<JournalFacts>[] = [
  { header: 'RUN', value: (j) => j.runId },
  { header: 'INPUT', value: (j) => j.input, kind: 'text' },
  { header: 'HOST', value: (j) => j.host, kind: 'text' },
  { header: 'STARTED', value: (j) => j.started, kind: 'date' },
  { header: 'SENT', value: (j) => j.sent },
  { header: 'REFUSED', value: (j) => j.refused },
  { header: 'STATE', value: stateOf },
];

export function stateOf(j: JournalFacts): string {
  if (j.running) return 'running';
  return j.finished ? 'finished' : 'unfinished';
}

export async function run(_opts: Record<string, never>, ctx: CommandContext): Promise<void> {
  const dir = batchJournalDir(ctx.env);
  const { journals, unreadable } = await listJournals(dir);
  noteUnreadable(ctx, unreadable);
  const table = await printRows(ctx, ctx.globals, journals, JOURNAL_COLUMNS, { empty: `No journals in ${oneLine(dir)}.` });
  if (table && existsSync(join(ctx.cwd, 'journals'))) {
    notice(ctx.io.err, 'note', 'this lists journals; to send the file named journals here: mailroom batch ./journals');
  }
  if (table && outputMode(ctx, ctx.globals).format === 'table' && journals.some((j) => !j.finished && !j.running)) {
    ctx.io.err.write('Unfinished runs: mailroom batch journals show <run> prints the command that sends the rest.\n');
  }
}
