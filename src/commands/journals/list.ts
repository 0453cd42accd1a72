import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { verb } from '../verb.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('list', { isDefault: true })
    .description('list the journals: input, host, started, sent, refused, finished or not (the default)')
    .addHelpText(
      'after',
      `
JSON (piped or --json): { "items": [...], "hasMore": false }, newest run first; each item has
journal, link, runId, input, host, profile, started, lastWritten, sent, refused, unsent (0 once
finished, null while a resume may send more), total, finished, finishedAt, running, resume.

Examples:
  $ mailroom batch journals
  $ mailroom batch journals --json | jq -r '.items[].resume // empty'`,
    )
    .action(verb(ctx, () => import('./list.run.js'), (): Record<string, never> => ({})));
}
