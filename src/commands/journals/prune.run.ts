import type { CommandContext } from '../context.js';
import { pruneJournals, type JournalFacts } from '../../batch/journals.js';
import { batchJournalDir } from '../../batch/paths.js';
import { printJson } from '../../output/print.js';
import { outputMode } from '../../output/mode.js';
import { oneLine } from '../../output/one-line.js';
import { noteUnreadable } from '../shared/unreadable-journals.js';
import { count, figure } from '../../plural.js';

export interface JournalsPruneOptions {
  olderThanMs: number | undefined;
  force: boolean;
  dryRun: boolean;
}

export async function run(opts: JournalsPruneOptions, ctx: CommandContext): Promise<void> {
  const result = await pruneJournals(batchJournalDir(ctx.env), { ...opts, now: Date.now() });
  noteUnreadable(ctx, result.unreadable);
  const mode = outputMode(ctx, ctx.globals);
  const kept = [...result.unfinished.map((j) => ({ ...j, kept: 'unfinished' })), ...result.running.map((j) => ({ ...j, kept: 'running' }))];
  if (mode.format === 'json' && !mode.quiet) printJson(ctx, { removed: result.removed, kept, dryRun: opts.dryRun });
  else if (!mode.quiet) {
    const verb = opts.dryRun ? 'would delete' : 'deleted';
    for (const j of result.removed) ctx.io.out.write(`${verb} ${describe(j)}\n`);
    if (result.removed.length === 0) ctx.io.out.write(`${opts.dryRun ? 'Would delete' : 'Deleted'} no journal.\n`);
  }
  // What was kept is said on stderr even with --json and -q: it is why a journal the user expected gone is not.
  if (result.unfinished.length > 0) {
    const n = result.unfinished.length;
    ctx.io.err.write(`mailroom: kept ${count(n, 'unfinished journal')} (a resume sends the rest exactly once from it; --force deletes it too): ${result.unfinished.map((j) => j.runId).join(', ')}\n`);
  }
  if (result.running.length > 0) {
    ctx.io.err.write(`mailroom: kept ${result.running.map((j) => j.runId).join(', ')}: a run is sending ${result.running.length === 1 ? 'it' : 'them'} now\n`);
  }
}

function describe(j: JournalFacts): string {
  const what = `${j.runId} (${oneLine(j.input)}, ${j.finished ? 'finished' : 'unfinished'}, ${figure(j.sent)} sent)`;
  return j.link ? `${what}: the link ${oneLine(j.link)}; the journal ${oneLine(j.journal)} itself is kept` : `${what}: ${oneLine(j.journal)}`;
}
