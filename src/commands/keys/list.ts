import type { Command } from 'commander';
import { Option } from 'commander';
import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import { verb } from '../verb.js';
import type { KeysListOptions } from './list.run.js';
import { parseIntegerOption } from '../shared/option-parsers.js';
import { choiceParser } from '../../input/choice.js';

const SORTS = ['createdAt.desc', 'createdAt.asc'] as const;

function checkStartAt(value: string | undefined): void {
  if (value !== undefined && (!/^\d{4}-\d\d-\d\dT/.test(value) || Number.isNaN(Date.parse(value)))) {
    throw usageError(`--start-at must be an ISO 8601 time, as a page's "startAt" gives it (e.g. 2026-11-23T10:00:00.000Z), not "${value}"`);
  }
}

export function register(parent: Command, ctx: Context): void {
  parent
    .command('list')
    .description('list the workspace API keys (secrets masked)')
    .addOption(new Option('--limit <n>', 'keys per page (1-100; the API default is 15)').argParser(parseIntegerOption('--limit', 1, 100)))
    .addOption(new Option('--sort <order>', 'order by creation time (default createdAt.desc)').choices(SORTS).argParser(choiceParser('--sort', SORTS)))
    .option('--start-at <time>', 'begin at this page ("startAt" of the previous page\'s JSON)')
    .option('--all', 'follow every page')
    .addHelpText(
      'after',
      `
JSON (piped or --json) is one page: { "items": [...], "hasMore", "startAt" }; with --all every key,
and hasMore false.

Examples:
  $ mailroom keys list --workspace wrk_123
  $ mailroom keys list --all --json | jq -r '.items[].id'
  $ mailroom keys list --limit 50 --start-at "$(jq -r .startAt page1.json)"`,
    )
    .action(
      verb(ctx, () => import('./list.run.js'), (flags: KeysListOptions) => {
        checkStartAt(flags.startAt);
        return flags;
      }),
    );
}
