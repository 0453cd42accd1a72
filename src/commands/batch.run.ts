import type { CommandContext } from './context.js';
import type { Globals } from '../context.js';
import { MailroomError, QuietExit, usageError } from '../errors.js';
import { count, figure } from '../plural.js';
import type { BatchSummary } from '../batch/run-options.js';
import { runBatch } from '../batch/run.js';
import { batchJournalDir, privateStateDir } from '../batch/paths.js';
import { failedEntriesNote, printSummary, summaryJson } from './shared/batch-summary.js';
import { batchOver } from '../batch/http.js';
import { keyFingerprint } from '../batch/fingerprint.js';
import type { SendBatch } from '../batch/sender.js';
import type { ApiIdentity } from '../batch/journal.js';
import type { EntryDefaults } from '../input/entries.js';
import { readSource } from '../input/sources.js';
import { stdinFor } from '../input/stdin.js';
import { parseSendAt } from '../input/time.js';
import { outputMode } from '../output/mode.js';
import { printJson } from '../output/print.js';
import { createProgressBar, createProgressLines } from '../output/progress.js';
import { raisedTimeout } from './shared/transport-hints.js';
import { CLI_WORDING } from './shared/batch-wording.js';
import type { Settings } from '../config/settings.js';
import { notice } from '../output/notice.js';

export interface BatchOptions {
  /** The input file; stdin when absent or `-`. */
  file?: string;
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
  newRun?: boolean;
  allowOtherHost?: boolean;
  allowOtherKey?: boolean;
  dryRun?: boolean;
}

export async function run(flags: BatchOptions, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  const { file } = flags;
  if (flags.template !== undefined && flags.htmlFile !== undefined) {
    throw usageError('--template and --html-file cannot be combined: an entry is either templated or raw');
  }
  const toStdout = flags.report === '-' ? '--report' : flags.failed === '-' ? '--failed' : undefined;
  // stdout is that file: an expression with no document to run on is refused, never ignored.
  if (ctx.jq && toStdout) throw usageError(`--jq: with ${toStdout} - stdout carries that file, not a JSON document to filter; pipe it to jq instead`);
  if (flags.htmlFile === '-' && (file === undefined || file === '-')) {
    throw usageError('--html-file - would read stdin, which already carries the emails');
  }
  const defaults: EntryDefaults = {};
  if (flags.from !== undefined) defaults.from = flags.from;
  if (flags.subject !== undefined) defaults.subject = flags.subject;
  if (flags.template !== undefined) defaults.template = flags.template;
  if (flags.groupBy !== undefined) defaults.groupBy = flags.groupBy;
  if (flags.htmlFile !== undefined) {
    defaults.html = await readSource(flags.htmlFile, '--html-file', ctx.cwd, stdinFor(ctx, 'the HTML body'));
  }
  if (flags.sendAt !== undefined) {
    defaults.sendAt = parseSendAt(flags.sendAt);
  }

  const sending = flags.dryRun ? undefined : await openSending(ctx);
  const mode = outputMode(ctx, globals);
  // A bar redrawn in place on a terminal; plain lines at a steady pace in a CI log or a file.
  const bar = mode.quiet || flags.dryRun ? undefined : ctx.io.isStderrTTY ? createProgressBar(ctx.io, ctx.signal) : createProgressLines(ctx.io, ctx.clock);
  const warn = (message: string) => {
    if (!mode.quiet) notice(ctx.io.err, 'note', message);
  };
  let summary: BatchSummary;
  try {
    summary = await runBatch({ cwd: ctx.cwd, signal: ctx.signal, warn }, {
      input: file,
      format: flags.format,
      defaults,
      size: flags.size,
      concurrency: flags.concurrency,
      report: flags.report,
      failed: flags.failed,
      resume: flags.resume,
      otherInputs: flags.htmlFile !== undefined && flags.htmlFile !== '-' ? [{ flag: '--html-file', path: flags.htmlFile }] : [],
      stdio: ctx.io,
      wording: CLI_WORDING,
      dryRun: Boolean(flags.dryRun),
      // Made (0700) only when a run will write its journal there.
      journalDir: flags.resume === undefined && !flags.dryRun ? privateStateDir(ctx.env) : batchJournalDir(ctx.env),
      send: sending?.send,
      // One retry budget: the transport makes one attempt per call, the sender retries.
      ...(sending ? { retry: { maxAttempts: 1 + sending.maxRetries }, api: sending.api } : {}),
      newRun: flags.newRun,
      allowOtherHost: flags.allowOtherHost,
      allowOtherKey: flags.allowOtherKey,
      onProgress: bar ? (p, final) => bar.update(p, final) : undefined,
    });
  } finally {
    bar?.stop();
  }

  // A run stopped by a timeout resumes with a longer one, as its hint says.
  const timeout = sending ? raisedTimeout(summary.fatal, sending.settings.timeoutMs.value) : undefined;
  const repeat = resumeArgs(flags, { ...globals, ...(timeout === undefined ? {} : { timeout: Number(timeout) }) }, sending?.settings, defaults.sendAt);
  // With --report - (or --failed -) stdout carries that file: the summary goes to stderr only.
  const stdoutTaken = summary.report === '-' || summary.failedFile === '-';
  if (stdoutTaken && ctx.document) ctx.document.stdoutIsData = true;
  if (mode.format === 'json' && !mode.quiet) {
    // On stdout the summary is the command's one JSON document: the error it ends with goes inside it.
    if (!stdoutTaken) printJson(ctx, summaryJson(summary, file, repeat));
    else if (globals.json) ctx.io.err.write(`${JSON.stringify({ ...summaryJson(summary, file, repeat), ...(summary.fatal ? { error: summary.fatal.message } : {}) })}\n`);
  }
  if (!mode.quiet && !globals.json) {
    printSummary(ctx.io.err, summary, file, repeat);
    const resumable = summary.journal && (summary.interrupted || summary.fatal || summary.uncertain > 0);
    if (resumable && sending?.settings.apiKey?.source === 'flag') ctx.io.err.write('  (and your --api-key: keys are never printed)\n');
  }

  if (summary.fatal) throw summary.fatal;
  if (summary.interrupted) {
    // 128 + SIGINT, as shells report it; the summary above says how to resume.
    throw new QuietExit(130, { message: 'interrupted: the run stopped before the end of its input', hints: summary.journal ? [`resume it with --resume ${summary.journal}`] : [] });
  }
  // With -q or --json the summary is not on stderr: the one line says what the first problem is.
  const first = summary.errors[0];
  const firstError = first ? `; first: entry ${first.index} (line ${first.line}): ${first.error}` : '';
  if (summary.dryRun) {
    if (summary.invalid > 0) throw usageError(`${figure(summary.invalid)} of ${count(summary.total, 'entry')} ${summary.invalid === 1 ? 'is' : 'are'} invalid; nothing was sent${firstError}`);
    return;
  }
  if (summary.total > 0 && summary.invalid === summary.total) throw usageError(`${summary.total === 1 ? 'the one entry is not' : `none of the ${count(summary.total, 'entry')} is`} valid; nothing was sent${firstError}`);
  if (summary.failed > 0) {
    const hints: string[] = [];
    if (summary.failedFile && summary.failed > summary.uncertain) hints.push(failedEntriesNote(summary));
    if (summary.uncertain > 0 && summary.journal) hints.push(`${figure(summary.uncertain)} may be retried safely with --resume ${summary.journal}`);
    throw new MailroomError('partial', `${figure(summary.failed)} of ${count(summary.total, 'email')} failed`, { hints });
  }
}

interface Sending {
  send: SendBatch;
  maxRetries: number;
  api: ApiIdentity;
  settings: Settings;
}

/** The run's one transport (closed after the command by run()), its retry budget and identity for the journal. */
async function openSending(ctx: CommandContext): Promise<Sending> {
  const settings = ctx.settings();
  const transport = await ctx.api();
  const api: ApiIdentity = { baseUrl: settings.baseUrl.value, key: keyFingerprint(settings.apiKey?.value ?? ''), profile: settings.profile.value };
  // No abort signal: on Ctrl-C the requests in flight are allowed to settle and be journaled.
  return { send: batchOver(transport), maxRetries: settings.maxRetries.value, api, settings };
}

/**
 * Every flag but secrets that a resume must repeat to continue the same run at the same place:
 * the defaults (the resolved --send-at, not `+2h` again), the outputs, and where it sends
 * (--base-url and --profile explicitly, so a different MAILROOM_BASE_URL cannot redirect it).
 */
function resumeArgs(flags: BatchOptions, globals: Globals, settings: Settings | undefined, sendAt: string | undefined): string[] {
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
