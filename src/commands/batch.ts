import { Option, type Command } from 'commander';
import type { Context } from '../context.js';
import { parseIntegerOption } from './shared/option-parsers.js';
import { choiceParser } from '../input/choice.js';
import type { BatchOptions } from './batch.run.js';
import { checkDependentOptions } from './shared/dependent-options.js';
import { verb } from './verb.js';
import * as journals from './journals/index.js';

const FORMATS = ['json', 'ndjson', 'csv'] as const;

export function register(parent: Command, ctx: Context): void {
  const batch = parent
    .command('batch')
    .argument('[file]', 'emails as a JSON array, { "emails": [...] }, NDJSON or CSV; "-" or omitted reads piped stdin')
    .description('send many emails through POST /v1/emails/batch, each exactly once, resumable')
    .addOption(new Option('--format <format>', 'input format (default: from the extension or the content)').choices(FORMATS).argParser(choiceParser('--format', FORMATS)))
    .option('--from <address>', 'default sender for raw entries without one')
    .option('--subject <text>', 'default subject for raw entries without one')
    .option('--template <name>', 'default template for entries with neither template nor html')
    .option('--html-file <path>', 'default HTML body (read once) for entries with neither template nor html')
    .option('--group-by <id>', 'default analytics grouping')
    .option('--send-at <time>', 'default schedule: ISO 8601 with a zone, or +30m, +2h, +3d')
    .addOption(new Option('--concurrency <n>', 'requests in flight').default(4).argParser(parseIntegerOption('--concurrency', 1, 64)))
    .addOption(new Option('--size <n>', 'emails per request (1..50)').default(50).argParser(parseIntegerOption('--size', 1, 50)))
    .option('--report <file>', 'write one NDJSON line per input entry: { index, id?, status?, error? } ("-": stdout)')
    .option('--failed <file>', 'write the failed entries as they were read, in the input\'s format, ready to fix and send again ("-": stdout)')
    .option('--resume <journal>', 'journal to resume (created when missing): skips what it records as done, reuses its idempotency keys')
    .option('--new-run', 'send the entries again although a journal records a run of the same entries to the same API (refused without it)')
    .option('--allow-other-host', "with --resume: resume a journal against another API host than its run's (its keys are new there)")
    .option('--allow-other-key', "with --resume: resume a journal with another API key than its run's (a rotated key of the same account)")
    .option('--dry-run', 'validate every entry locally; send nothing')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom batch emails.ndjson --report report.ndjson --failed failed.ndjson
  $ mailroom batch contacts.csv --template welcome --concurrency 8
  $ generate-emails | mailroom batch - --from ops@example.com --subject "Hello"
  $ mailroom batch emails.json --resume run.journal   # finish an interrupted run

Every entry gets an idempotency key fixed for the run (mr-<runId>-<index>) unless it has its own,
so retries and --resume never send an email twice. A journal is always written (path in the summary).
A new run of entries that a journal in the state directory already sent (the same file, or the same
first entries from any file or stdin; same host and key) is refused: --resume <journal> finishes that
run or sends only entries added since, --new-run sends everything again. Of two runs of the same
entries started at once, one sends them and the other exits 2 naming it (--new-run too).
Exit codes: 0 all sent, 7 some failed, 2 bad input or entries sent before (nothing sent), 3 auth,
5 limits, 6 network, 9 a file could not be written (disk full: resume with room), 130 interrupted
(resume with --resume <journal>).
Journals of earlier runs: mailroom batch journals (a file named journals: mailroom batch ./journals).`,
    )
    .action(verb(ctx, () => import('./batch.run.js'), (flags: Omit<BatchOptions, 'file'>, [file], cmd): BatchOptions => {
      checkDependentOptions('batch', cmd);
      return { ...flags, file };
    }));
  journals.register(batch, ctx);
}
