import type { Writable } from 'node:stream';
import { count, figure as n, noun } from '../../plural.js';
import { oneLine } from '../../output/one-line.js';
import type { BatchSummary } from '../../batch/run-options.js';

const quote = (s: string) => (/^[\w./@:+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * The command that finishes a stopped run: the input, its journal, and `repeat`, every flag (no
 * secrets) that shaped the run, as the command gives them.
 */
export function resumeCommand(s: BatchSummary, input: string | undefined, repeat: readonly string[] = []): string {
  return ['mailroom', 'batch', input ?? '-', '--resume', s.journal ?? '', ...repeat].map(quote).join(' ');
}

/** The `--json` summary: one object on stdout. */
export function summaryJson(s: BatchSummary, input?: string, repeat?: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {
    total: s.total,
    sent: s.sent,
    scheduled: s.scheduled,
    failed: s.failed,
    skipped: s.skipped,
    duplicates: s.duplicates,
    invalid: s.invalid,
    uncertain: s.uncertain,
    unsent: s.unsent,
    durationMs: s.durationMs,
    emailsPerSecond: s.emailsPerSecond,
    runId: s.runId,
    journal: s.journal,
    dryRun: s.dryRun,
    interrupted: s.interrupted,
    resumed: s.resumed,
    errors: s.errors,
  };
  if (s.report) out.report = s.report;
  if (s.failedFile) out.failedFile = s.failedFile;
  if (s.journal && (s.interrupted || s.fatal || s.uncertain > 0) && !s.dryRun) out.resume = resumeCommand(s, input, repeat);
  return out;
}

/** "Sent 3", "Scheduled 2", "Sent 1 and scheduled 2": what the API accepted, as it will happen. */
function accepted(s: BatchSummary, sent: string, scheduled: string): string {
  const now = s.sent - s.scheduled;
  if (s.scheduled === 0) return `${sent} ${n(s.sent)}`;
  if (now === 0) return `${scheduled} ${n(s.scheduled)}`;
  return `${sent} ${n(now)} and ${scheduled.toLowerCase()} ${n(s.scheduled)}`;
}

/** The human summary on stderr: counts, the first errors, where the files are, how to resume. */
export function printSummary(err: Writable, s: BatchSummary, input: string | undefined, repeat?: readonly string[]): void {
  const lines: string[] = [];
  if (s.dryRun) {
    lines.push(`Dry run: ${count(s.total, 'entry')}, ${n(s.total - s.invalid - s.skipped - s.duplicates)} valid, ${n(s.invalid)} invalid${s.skipped ? `, ${n(s.skipped)} already sent` : ''}${s.duplicates ? `, ${count(s.duplicates, 'duplicate')}` : ''}; nothing sent.`);
  } else {
    // "in 27 ms", not "in 0.0 s".
    const took = Math.round(s.durationMs) < 1000 ? `${Math.round(s.durationMs)} ms` : `${(s.durationMs / 1000).toFixed(1)} s`;
    const rest = `${n(s.failed)} failed${s.skipped ? `, ${n(s.skipped)} skipped (sent by an earlier run)` : ''}${s.duplicates ? `, ${count(s.duplicates, 'duplicate')} not sent (an earlier entry's idempotencyKey and content)` : ''}`;
    const rate = `${took} (${n(Math.round(s.emailsPerSecond))}/s)`;
    if (s.interrupted || s.fatal) {
      // "Stopped after sending 1 email", "Stopped after sending 1 and scheduling 2 emails".
      const done = accepted(s, 'sending', 'scheduling');
      lines.push(`Stopped after ${done} ${noun(s.sent, 'email')} in ${rate}: ${rest}.`);
      lines.push(
        s.unsent > 0
          ? `  ${count(s.unsent, 'entry')} read but not sent; the input was read no further.`
          : '  every entry read was settled; the input was read no further.',
      );
    } else {
      lines.push(`${accepted(s, 'Sent', 'Scheduled')} of ${count(s.total, 'email')} in ${rate}: ${rest}.`);
    }
  }
  if (s.errors.length > 0) {
    lines.push(s.failed > s.errors.length ? `  first ${count(s.errors.length, 'error')}:` : '  errors:');
    for (const e of s.errors) lines.push(`    entry ${e.index} (line ${e.line}): ${oneLine(e.error)}`);
  }
  if (s.report) lines.push(`  report: ${s.report}`);
  if (s.failedFile && s.failed > s.uncertain) lines.push(`  ${failedEntriesNote(s)}`);
  if (s.journal) lines.push(`  journal: ${s.journal}`);
  const stoppedEarly = s.interrupted || s.fatal !== undefined;
  if (s.journal && (stoppedEarly || s.uncertain > 0)) {
    if (s.interrupted) {
      lines.push(
        s.uncertain > 0
          ? `  interrupted: the requests in flight were settled and journaled, but for ${count(s.uncertain, 'entry')} whose answer never came (${s.uncertain === 1 ? 'it' : 'they'} may have been sent; the resume settles ${s.uncertain === 1 ? 'it' : 'them'} under the same keys).`
          : '  interrupted: the requests in flight were settled and journaled.',
      );
    }
    lines.push(`  to finish, run again with the same flags: ${resumeCommand(s, input, repeat)}`);
  }
  err.write(`${lines.join('\n')}\n`);
}

/** Where the failed entries are, as read, and which are not there: those the API may have (a resume settles them). */
export function failedEntriesNote(s: Pick<BatchSummary, 'failedFile' | 'failed' | 'uncertain'>): string {
  const without = s.uncertain > 0 ? ` (without the ${n(s.uncertain)} that may have been sent: --resume settles those)` : '';
  return `failed entries, as read: ${s.failedFile}${without}; fix them and send that file with the same flags`;
}
