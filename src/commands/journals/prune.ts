import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import { parseDuration } from '../../input/time.js';
import { verb } from '../verb.js';
import type { JournalsPruneOptions } from './prune.run.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('prune')
    .description('delete finished journals last written longer ago than --older-than, or all finished ones with --all')
    .option('--older-than <duration>', 'only journals last written longer ago than this: 90s, 30m, 12h, 30d')
    .option('--all', 'every finished journal, whatever its age')
    .option('--force', 'unfinished journals too (what --resume would need to send the rest exactly once); never one a run is sending')
    .option('--dry-run', 'print what would be deleted; delete nothing')
    .addHelpText(
      'after',
      `
A deleted journal's run is forgotten: a new run of the same input is no longer refused as a
repeat, and an unfinished run can no longer be resumed. A journal kept elsewhere (--resume <file>)
loses only its link in the state directory; the file itself is yours and stays.
JSON (piped or --json): { "removed": [...], "kept": [...] } with the list's fields of each journal
("kept": unfinished or running ones of the age asked for, left in place).

Examples:
  $ mailroom batch journals prune --older-than 30d
  $ mailroom batch journals prune --all --dry-run`,
    )
    .action(
      verb(ctx, () => import('./prune.run.js'), (flags: { olderThan?: string; all?: boolean; force?: boolean; dryRun?: boolean }, _operands, cmd): JournalsPruneOptions => {
        // Commander hands a --dry-run after `batch` to batch's own option (journals/index.ts).
        const batch = cmd.parent?.parent;
        const dryRun = Boolean(flags.dryRun) || batch?.getOptionValueSource('dryRun') === 'cli';
        if (flags.olderThan === undefined && !flags.all) throw usageError('batch journals prune: say which journals: --older-than <duration> (e.g. 30d), or --all for every finished one');
        if (flags.olderThan !== undefined && flags.all) throw usageError('batch journals prune: --older-than and --all: give one of them');
        return { olderThanMs: flags.olderThan === undefined ? undefined : parseDuration(flags.olderThan, '--older-than'), force: Boolean(flags.force), dryRun };
      }),
    );
}
