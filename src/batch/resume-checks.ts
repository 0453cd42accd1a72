import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { usageError } from '../errors.js';
import type { EntryDefaults } from '../input/entries.js';
import { oneLine } from '../output/one-line.js';
import { earlierRunsOf, journalStart, rerunRefusal, sameMomentRefusal } from './earlier-runs.js';
import { fingerprintFile, fingerprintStart } from './fingerprint.js';
import type { ApiIdentity, JournalHeader } from './journal.js';
import type { BatchEnv, BatchRunOptions } from './run-options.js';
import type { BatchField, BatchWording } from './wording.js';
import { figure } from '../plural.js';

// Whether a run may go on: a resume must be the run its journal recorded (input, defaults, API), and
// a new run must not send again what an earlier run sent.

/** What the journal pins besides the input: flags that change the emails sent under each key. */
export function defaultsDigest(d: EntryDefaults): Record<string, string | undefined> {
  return {
    from: d.from,
    subject: d.subject,
    template: d.template,
    html: d.html === undefined ? undefined : createHash('sha256').update(d.html).digest('hex').slice(0, 16),
    groupBy: d.groupBy,
    sendAt: d.sendAt,
  };
}

const DEFAULT_FIELDS = ['from', 'subject', 'template', 'html', 'groupBy', 'sendAt'] as const satisfies readonly BatchField[];

/**
 * A new run of an input that an earlier run (its journal in the state directory) sent to the same
 * host with the same key would send it all again: refused unless `newRun`, which only notes it (and
 * says so: true). Inputs with other bytes are compared entry by entry (same-entries.ts).
 */
export async function checkNotSentBefore(ctx: BatchEnv, wording: BatchWording, o: BatchRunOptions, fingerprint: string, api: ApiIdentity): Promise<boolean> {
  const runs = await earlierRunsOf(o.journalDir, fingerprint, api);
  if (runs === undefined) return false;
  const { sending, path, header } = runs.newest;
  if (sending) throw sameMomentRefusal({ label: o.input ?? '-', input: o.input ?? '-', piped: false, wording }, path, header, sending);
  if (!o.newRun) throw rerunRefusal(runs, o.input ?? '-', wording);
  ctx.warn(`${wording.name('newRun')}: sending again what ${oneLine(runs.newest.path)} records as sent (${figure(runs.newest.sent)})`);
  return true;
}

/** Refuses to resume a journal against other input or other defaults: its keys would be reused for different emails. */
export async function checkSameRun(ctx: BatchEnv, { name }: BatchWording, header: JournalHeader, path: string | undefined, digest: Record<string, string | undefined>, journalPath: string): Promise<void> {
  if (header.fingerprint && path) {
    const now = await fingerprintFile(path);
    if (now !== header.fingerprint && !(await grewAtItsEnd(path, header, journalPath))) {
      throw usageError(`${name('journal')} ${journalPath}: the input is not the file this journal was made from (${header.input})`, [
        `a journal resumes only the input it was made from, or that file with entries added at its end; if the file changed otherwise, what that run sent is in the journal (and its ${name('report')}): send only the entries it did not, as a file of their own`,
      ]);
    }
    if (now !== header.fingerprint) ctx.warn(`${oneLine(path)} grew since the journal's run read it: the entries added at its end are sent with the rest`);
  } else if (header.fingerprint) {
    // A journal made from a file, resumed from stdin: checked as it is read (checkpoints), not up front.
    ctx.warn(`the journal was made from ${oneLine(header.input)}; piped input is checked against it as it is read`);
  }
  const was = header.defaults ?? {};
  for (const field of DEFAULT_FIELDS) {
    if (was[field] === digest[field]) continue;
    const flag = name(field);
    const shown = (v: string | undefined) => (v === undefined ? 'not given' : field === 'html' ? `sha256 ${v}` : JSON.stringify(v));
    throw usageError(`${name('journal')} ${journalPath}: ${flag} differs from the run being resumed (it was ${shown(was[field])}, now ${shown(digest[field])})`, [
      was[field] === undefined || field === 'html' ? 'give the same defaults as the interrupted run' : `give ${flag} ${was[field]} as the interrupted run did`,
    ]);
  }
}

/**
 * The file starts with the bytes the journal's run read (entries were appended), and the journal
 * checkpointed its requests: the resume checks every entry it sent against those as it reads, so a
 * changed line where the two files join still stops it before a key is reused.
 */
async function grewAtItsEnd(path: string, header: JournalHeader, journalPath: string): Promise<boolean> {
  if (typeof header.bytes !== 'number' || statSync(path).size <= header.bytes) return false;
  // A journal whose first record is no checkpoint predates them: nothing to check its entries against.
  if (journalStart(journalPath)?.first === undefined) return false;
  return (await fingerprintStart(path, header.bytes)) === header.fingerprint;
}

/** Refuses to resume against another host or key: the keys already used live on the journal's API. */
export function checkSameApi({ name }: BatchWording, header: JournalHeader, o: BatchRunOptions, journalPath: string): void {
  const was = header.api;
  const now = o.api;
  if (!was || !now) return;
  if (was.baseUrl !== now.baseUrl && !o.allowOtherHost) {
    throw usageError(`${name('journal')} ${journalPath}: the run of this journal was sent to ${was.baseUrl}, but this run would send to ${now.baseUrl}`, [
      `add ${name('baseUrl')} ${was.baseUrl} to finish it there; ${name('allowOtherHost')} resumes against ${now.baseUrl} (its idempotency keys are new there: what was sent before could be sent again)`,
    ]);
  }
  if (was.key !== now.key && !o.allowOtherKey) {
    throw usageError(`${name('journal')} ${journalPath}: another API key than the journal's run used (key ${now.key}, the run's ${was.key}, profile ${was.profile})`, [
      `use the run's key (${name('profile')} ${was.profile}); if this is a new key of the same account (rotated), add ${name('allowOtherKey')}`,
    ]);
  }
}

/** A resume whose input is not its run's, at `detail`: refused before a key is reused for another email. */
export const inputDiffers = (journal: string, detail: string) =>
  usageError(`${journal}: the input differs from the run being resumed (${detail})`, [
    'resume with the same input, in the same order (a changed stretch would pair used keys with other emails); nothing more was sent',
  ]);
