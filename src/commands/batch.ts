import { Option, type Command } from 'commander';
import type { Context, Globals } from '../context.js';
import { CliError, QuietExit, usageError } from '../errors.js';
import { parseIntegerOption } from './options.js';
import { count } from '../count.js';
import type { BatchSummary } from '../batch/run.js';
import type { SendBatch } from '../batch/sender.js';
import type { EntryDefaults } from '../input/entries.js';
import type { Transport } from '../transport/index.js';
import type { ApiIdentity } from '../batch/journal.js';
import type { Settings } from '../config/settings.js';
import { choiceParser } from '../input/choice.js';

const FORMATS = ['json', 'ndjson', 'csv'] as const;

export interface BatchFlags {
  format?: 'json' | 'ndjson' | 'csv';
  from?: string;
  subject?: string;
  template?: string;
  htmlFile?: string;
  groupBy?: string;
  sendAt?: string;
  concurrency: number;
  size: number;
  report?: string;
  failed?: string;
  resume?: string;
  allowOtherHost?: boolean;
  allowOtherKey?: boolean;
  dryRun?: boolean;
}

export function register(parent: Command, ctx: Context): void {
  parent
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
    .option('--failed <file>', 'write the failed entries as NDJSON, ready to fix and feed back in ("-": stdout)')
    .option('--resume <journal>', 'journal to resume (created when missing): skips what it records as done, reuses its idempotency keys')
    .option('--allow-other-host', "resume a journal against another API host than its run's (its keys are new there)")
    .option('--allow-other-key', "resume a journal with another API key than its run's (a rotated key of the same account)")
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
Exit codes: 0 all sent, 7 some failed, 2 bad input (nothing sent), 3 auth, 5 limits, 6 network,
9 a file could not be written (disk full: resume with room), 130 interrupted (resume with
--resume <journal>).`,
    )
    .action(async (file: string | undefined, flags: BatchFlags, cmd: Command) => {
      await run(file, flags, cmd.optsWithGlobals<Globals>(), ctx);
    });
}

export async function run(file: string | undefined, flags: BatchFlags, globals: Globals, ctx: Context): Promise<void> {
  if (flags.template !== undefined && flags.htmlFile !== undefined) {
    throw usageError('--template and --html-file cannot be combined: an entry is either templated or raw');
  }
  if (flags.htmlFile === '-' && (file === undefined || file === '-')) {
    throw usageError('--html-file - would read stdin, which already carries the emails');
  }
  const defaults: EntryDefaults = {};
  if (flags.from !== undefined) defaults.from = flags.from;
  if (flags.subject !== undefined) defaults.subject = flags.subject;
  if (flags.template !== undefined) defaults.template = flags.template;
  if (flags.groupBy !== undefined) defaults.groupBy = flags.groupBy;
  if (flags.htmlFile !== undefined) {
    const [{ readSource }, { stdinFor }] = await Promise.all([import('../input/sources.js'), import('../input/stdin.js')]);
    defaults.html = await readSource(flags.htmlFile, '--html-file', ctx.cwd, stdinFor(ctx, 'the HTML body'));
  }
  if (flags.sendAt !== undefined) {
    const { parseSendAt } = await import('../input/time.js');
    defaults.sendAt = parseSendAt(flags.sendAt);
  }

  // Everything the run needs loads at once, and the connection is set up meanwhile: on a 20,000
  // email run, start-up is a tenth of the wall time.
  const [{ runBatch }, { batchJournalDir, privateStateDir }, { outputMode }, { printSummary, summaryJson }, sending] = await Promise.all([
    import('../batch/run.js'),
    import('../batch/paths.js'),
    import('../output/mode.js'),
    import('../batch/summary.js'),
    flags.dryRun ? undefined : openSending(ctx, globals),
  ]);
  const mode = outputMode(ctx, globals);
  const transport = sending?.transport;
  const bar = ctx.io.isStderrTTY && !mode.quiet && !flags.dryRun ? (await import('../output/progress.js')).createProgressBar(ctx.io, ctx.signal) : undefined;
  let summary: BatchSummary;
  try {
    summary = await runBatch(ctx, {
      input: file,
      format: flags.format,
      defaults,
      size: flags.size,
      concurrency: flags.concurrency,
      report: flags.report,
      failed: flags.failed,
      resume: flags.resume,
      otherInputs: flags.htmlFile !== undefined && flags.htmlFile !== '-' ? [{ flag: '--html-file', path: flags.htmlFile }] : [],
      dryRun: Boolean(flags.dryRun),
      // Made (0700) only when a run will write its journal there.
      journalDir: flags.resume === undefined && !flags.dryRun ? privateStateDir(ctx.env) : batchJournalDir(ctx.env),
      send: sending?.send,
      // One retry budget: the transport makes one attempt per call, the sender retries.
      ...(sending ? { retry: { maxAttempts: 1 + sending.maxRetries }, api: sending.api } : {}),
      allowOtherHost: flags.allowOtherHost,
      allowOtherKey: flags.allowOtherKey,
      onProgress: bar ? (p, final) => bar.update(p, final) : undefined,
    });
  } finally {
    bar?.stop();
    await transport?.close();
  }

  summary.resumeArgs = resumeArgs(flags, globals, sending?.settings, defaults.sendAt);
  // With --report - (or --failed -) stdout carries that file: the summary goes to stderr only.
  const stdoutTaken = summary.report === '-' || summary.failedFile === '-';
  if (mode.format === 'json' && !mode.quiet && (!stdoutTaken || globals.json)) {
    (stdoutTaken ? ctx.io.err : ctx.io.out).write(`${JSON.stringify(summaryJson(summary, file))}\n`);
  }
  if (!mode.quiet && !globals.json) {
    printSummary(ctx.io.err, summary, file);
    const resumable = summary.journal && (summary.interrupted || summary.fatal || summary.uncertain > 0);
    if (resumable && sending?.settings.apiKey?.source === 'flag') ctx.io.err.write('  (and your --api-key: keys are never printed)\n');
  }

  if (summary.fatal) throw summary.fatal;
  if (summary.interrupted) {
    // 128 + SIGINT, as shells report it; the summary above says how to resume.
    throw new QuietExit(130);
  }
  // With -q or --json the summary is not on stderr: the one line says what the first problem is.
  const first = summary.errors[0];
  const firstError = first ? `; first: entry ${first.index} (line ${first.line}): ${first.error}` : '';
  if (summary.dryRun) {
    if (summary.invalid > 0) throw usageError(`${summary.invalid} of ${count(summary.total, 'entry')} ${summary.invalid === 1 ? 'is' : 'are'} invalid; nothing was sent${firstError}`);
    return;
  }
  if (summary.total > 0 && summary.invalid === summary.total) throw usageError(`${summary.total === 1 ? 'the one entry is not' : `none of the ${count(summary.total, 'entry')} is`} valid; nothing was sent${firstError}`);
  if (summary.failed > 0) {
    const hints: string[] = [];
    if (summary.failedFile) hints.push(`failed entries: ${summary.failedFile}`);
    if (summary.uncertain > 0 && summary.journal) hints.push(`${summary.uncertain} may be retried safely with --resume ${summary.journal}`);
    throw new CliError('partial', `${summary.failed} of ${count(summary.total, 'email')} failed`, { hints });
  }
}

interface Sending {
  transport: Transport;
  send: SendBatch;
  maxRetries: number;
  api: ApiIdentity;
  settings: Settings;
}

async function openSending(ctx: Context, globals: Globals): Promise<Sending> {
  const [{ connect }, { batchOver }, { keyFingerprint }] = await Promise.all([import('../client.js'), import('../batch/http.js'), import('../batch/fingerprint.js')]);
  const { transport, settings } = await connect(ctx, globals);
  const api: ApiIdentity = { baseUrl: settings.baseUrl.value, key: keyFingerprint(settings.apiKey?.value ?? ''), profile: settings.profile.value };
  // No abort signal: on Ctrl-C the requests in flight are allowed to settle and be journaled.
  return { transport, send: batchOver(transport), maxRetries: settings.maxRetries.value, api, settings };
}

/**
 * Every flag but secrets that a resume must repeat to continue the same run at the same place:
 * the defaults (the resolved --send-at, not `+2h` again), the outputs, and where it sends
 * (--base-url and --profile explicitly, so a different MAILROOM_BASE_URL cannot redirect it).
 */
function resumeArgs(flags: BatchFlags, globals: Globals, settings: Settings | undefined, sendAt: string | undefined): string[] {
  const args: string[] = [];
  const add = (flag: string, value: string | number | undefined) => {
    if (value !== undefined) args.push(flag, String(value));
  };
  add('--format', flags.format);
  add('--from', flags.from);
  add('--subject', flags.subject);
  add('--template', flags.template);
  add('--html-file', flags.htmlFile);
  add('--group-by', flags.groupBy);
  add('--send-at', sendAt);
  add('--report', flags.report);
  add('--failed', flags.failed);
  const profile = settings?.profile ?? (globals.profile ? { value: globals.profile, source: 'flag' } : undefined);
  if (profile && profile.source !== 'default') add('--profile', profile.value);
  const baseUrl = settings?.baseUrl.source === 'default' ? undefined : (settings?.baseUrl.value ?? globals.baseUrl);
  add('--base-url', baseUrl);
  add('--timeout', globals.timeout);
  add('--max-retries', globals.maxRetries);
  return args;
}
