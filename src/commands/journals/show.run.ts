import type { CommandContext } from '../context.js';
import { findJournal, journalFacts, type RefusedEntry } from '../../batch/journals.js';
import { batchJournalDir } from '../../batch/paths.js';
import { printJson, printKeyValues, printTable } from '../../output/print.js';
import { outputMode } from '../../output/mode.js';
import { stateOf } from './list.run.js';

export interface JournalsShowOptions {
  journal: string;
}

export async function run(opts: JournalsShowOptions, ctx: CommandContext): Promise<void> {
  const path = findJournal(batchJournalDir(ctx.env), ctx.cwd, opts.journal);
  const refusedEntries: RefusedEntry[] = [];
  const facts = await journalFacts(path, null, refusedEntries);
  const mode = outputMode(ctx, ctx.globals);
  if (mode.quiet) return;
  if (mode.format === 'json') {
    printJson(ctx, { ...facts, refusedEntries });
    return;
  }
  await printKeyValues(ctx, [
    ['journal', facts.journal],
    ['run', facts.runId],
    ['input', facts.input],
    ['host', facts.host],
    ['profile', facts.profile],
    ['started', facts.started, 'date'],
    ['last written', facts.lastWritten, 'date'],
    ['state', stateOf(facts)],
    ['finished', facts.finishedAt, 'date'],
    ['entries', facts.total],
    ['sent', facts.sent],
    ['refused', facts.refused],
    ['resume', facts.running ? undefined : facts.resume],
  ]);
  if (refusedEntries.length > 0) {
    ctx.io.out.write('\n');
    await printTable(ctx, refusedEntries, [
      { header: 'INDEX', value: (r) => r.index },
      { header: 'LINE', value: (r) => r.line },
      { header: 'STATUS', value: (r) => r.statusCode },
      { header: 'ERROR', value: (r) => r.error, kind: 'text' },
    ]);
  }
}
