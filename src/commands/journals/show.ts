import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { verb } from '../verb.js';
import type { JournalsShowOptions } from './show.run.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('show')
    .description('what one journal records: its run, counts, the API\'s refusals, and how to finish it')
    .argument('<journal>', 'a journal file, or the run id that batch journals lists')
    .addHelpText(
      'after',
      `
JSON (piped or --json): the list's fields of the journal, plus "refusedEntries":
[{ index, line, error, statusCode }].

Examples:
  $ mailroom batch journals show 3f9a0c1d2e4b
  $ mailroom batch journals show run.journal --json | jq -r .resume`,
    )
    .action(verb(ctx, () => import('./show.run.js'), (_flags: unknown, [journal]): JournalsShowOptions => ({ journal: journal as string })));
}
