import { existsSync, statSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { MailroomError, isMailroomError, usageError } from '../errors.js';
import { openSource, readInput, type InputFormat, type InputSource, type ReadCounter } from '../input/detect.js';
import { prepareEntry, type InvalidEntry, type PreparedEntry, type ValidEntry } from '../input/entries.js';
import type { InputItem } from '../input/json-stream.js';
import type { EmailResult } from '../schema/index.js';
import { checkOutputs, type NamedPath, type OutputTargets } from '../output/targets.js';
import { JournalLock } from '../output/lock.js';
import { rememberJournal } from './earlier-runs.js';
import { fingerprintFile } from './fingerprint.js';
import { heapKeeper } from './memory.js';
import { DONE_OK, DoneSet } from './done-set.js';
import { Journal, newRunId, type CheckpointRecord, type JournalHeader, type OkRecord } from './journal.js';
import { loadJournal, readJournalHeader } from './journal-read.js';
import { FailedEntries, failedLine, NdjsonWriter, type ReportLine } from './entry-reports.js';
import { BatchSender, realClock } from './sender.js';
import { FIELD_WORDING } from './wording.js';

import { chunkEntries } from './chunks.js';
import { checkEntriesNotSentBefore } from './same-entries.js';
import { claimFirstRequest } from './first-request-claim.js';
import { checkNotSentBefore, checkSameApi, checkSameRun, defaultsDigest, inputDiffers } from './resume-checks.js';
import type { BatchEnv, BatchProgress, BatchRunOptions, BatchSummary, EntryError } from './run-options.js';


const FIRST_ERRORS = 10;

export const idempotencyKeyFor = (runId: string, index: number): string => `mr-${runId}-${index}`;

/**
 * One `mailroom batch` run: reads the input as a stream, validates each entry, sends the valid
 * ones in chunks, and records where every entry ended up (journal, report, failed file, counts).
 */
export async function runBatch(ctx: BatchEnv, o: BatchRunOptions): Promise<BatchSummary> {
  const targets = checkPaths(ctx, o);
  // One run per journal for its whole life: a second run, or a second resume, would send twice.
  const { name } = o.wording ?? FIELD_WORDING;
  const journalPath = o.resume === undefined ? undefined : resolve(ctx.cwd, o.resume);
  const lock = journalPath !== undefined && !o.dryRun ? JournalLock.acquire(journalPath, { subject: `${name('journal')} ${journalPath}`, holder: 'another mailroom batch', createDir: true, refuseThisProcess: true }) : undefined;
  try {
    return await runUnlocked(ctx, o, targets);
  } finally {
    lock?.release();
  }
}

/** Refuses outputs that are inputs or each other, before anything is opened for writing. */
function checkPaths(ctx: BatchEnv, o: BatchRunOptions): OutputTargets {
  const { name } = o.wording ?? FIELD_WORDING;
  const outputs: NamedPath[] = [];
  if (o.resume !== undefined) outputs.push({ flag: name('journal'), path: o.resume });
  if (o.report !== undefined) outputs.push({ flag: name('report'), path: o.report });
  if (o.failed !== undefined) outputs.push({ flag: name('failed'), path: o.failed });
  const inMemory = o.entries !== undefined || o.stream !== undefined;
  const targets = checkOutputs({
    cwd: ctx.cwd,
    inputs: [...(inMemory ? [] : [{ flag: 'input', path: o.input ?? '-' }]), ...(o.otherInputs ?? [])],
    outputs,
    stdoutAllowed: new Set([name('report'), name('failed')]),
    ...(o.stdio ? { io: o.stdio } : {}),
  });
  if (!o.stdio) {
    for (const output of outputs) if (targets.get(output.flag) === 'stdout') throw usageError(`${output.flag} ${output.path}: there is no stdout here; give a file`);
  }
  return targets;
}

async function runUnlocked(ctx: BatchEnv, o: BatchRunOptions, targets: OutputTargets): Promise<BatchSummary> {
  const wording = o.wording ?? FIELD_WORDING;
  const { name } = wording;
  const clock = ctx.clock ?? realClock;
  const startedAt = clock.now();
  const now = o.now ?? (() => new Date(clock.now()));
  const writerFor = (flag: string): NdjsonWriter | undefined => {
    const target = targets.get(flag);
    if (target === undefined) return undefined;
    // checkPaths refused `-` without stdio.
    return target === 'stdout' ? new NdjsonWriter('-', flag, o.stdio!.out) : new NdjsonWriter(target.path, flag, undefined, claims);
  };
  const source: InputSource =
    o.entries !== undefined || o.stream !== undefined
      ? { path: undefined, label: o.label ?? 'the input', size: undefined, chunks: o.stream ?? noChunks() }
      : await openInput(o, ctx.cwd);
  const resumePath = o.resume === undefined ? undefined : resolve(ctx.cwd, o.resume);
  const resuming = resumePath !== undefined && existsSync(resumePath) && statSync(resumePath).size > 0;
  /** A new run claims its first request before sending it, and may be refused then: its outputs wait for that. */
  const claims = !resuming && !o.dryRun && o.api !== undefined;
  const digest = defaultsDigest(o.defaults);

  let header: JournalHeader | undefined;
  let sentBefore = false;
  if (resuming && o.newRun) {
    throw usageError(`${name('newRun')} starts a new run, and ${name('journal')} ${resumePath} continues the run of that journal: give one of them`);
  }
  if (resuming) {
    header = await readJournalHeader(resumePath, `${name('journal')} ${resumePath}`);
    await checkSameRun(ctx, wording, header, source.path, digest, resumePath);
    if (!o.dryRun) checkSameApi(wording, header, o, resumePath);
  } else if (!o.dryRun) {
    const fingerprint = source.path ? await fingerprintFile(source.path, source.label) : null;
    if (fingerprint !== null && o.api) sentBefore = await checkNotSentBefore(ctx, wording, o, fingerprint, o.api);
    header = {
      mailroom: 'batch-journal',
      v: 1,
      runId: newRunId(),
      createdAt: new Date(startedAt).toISOString(),
      input: source.path ?? '-',
      fingerprint,
      bytes: source.size ?? null,
      size: o.size,
      defaults: digest,
      ...(o.api ? { api: o.api } : {}),
    };
  }
  const runId = header?.runId ?? newRunId();

  // Opened before any output: a new run refused for entries an earlier run sent leaves every file as it was.
  const input = await openEntries(o, source);
  const piped = source.path === undefined && o.stdio !== undefined && o.entries === undefined && o.stream === undefined;
  /** How the refusals of a new run name its input. */
  const named = { label: source.label, input: source.path ? (o.input ?? '-') : piped ? '-' : source.label, piped };
  /** The journals the check before reading compared with. */
  const seen = new Set<string>();
  /** Set when another run of the same entries claimed their first request first: this run sends nothing. */
  let refused: unknown;
  let report: NdjsonWriter | undefined;
  let failedOut: NdjsonWriter | undefined;
  try {
    // A dry run sends nothing and knows no key: it notes a run of its entries to any API.
    if (!resuming && !sentBefore && input.error === undefined && (o.dryRun || (header && o.api))) {
      input.items = await checkEntriesNotSentBefore(
        { dir: o.journalDir, api: o.dryRun ? undefined : o.api, newRun: Boolean(o.newRun), ...named, file: source.path !== undefined, size: o.size, wording, warn: ctx.warn, seen },
        input.items,
      );
    }
    report = writerFor(name('report'));
    failedOut = writerFor(name('failed'));
  } catch (err) {
    await input.close().catch(() => undefined);
    throw err;
  }
  const failedFile = failedOut ? new FailedEntries(failedOut) : undefined;
  // `--report -` and `--failed -` into a pipe whose reader is slow: reading (and so sending) waits for it.
  const outputsDrained = (): Promise<void> | undefined => {
    const report_ = report?.drained();
    const failed_ = failedOut?.drained();
    return report_ && failed_ ? Promise.all([report_, failed_]).then(() => undefined) : (report_ ?? failed_);
  };
  const summary: BatchSummary = {
    total: 0,
    sent: 0,
    scheduled: 0,
    failed: 0,
    invalid: 0,
    uncertain: 0,
    skipped: 0,
    duplicates: 0,
    unsent: 0,
    durationMs: 0,
    emailsPerSecond: 0,
    runId,
    journal: null,
    dryRun: o.dryRun,
    interrupted: false,
    errors: [],
    resumed: resuming,
  };
  if (report) summary.report = report.path;
  if (failedFile) summary.failedFile = failedFile.path;
  const noteError = (e: EntryError) => {
    if (summary.errors.length < FIRST_ERRORS) summary.errors.push(e);
  };

  let done = new DoneSet();
  let checkpoints = new Map<number, string>();
  let journal: Journal | undefined;
  let newJournalLock: JournalLock | undefined;
  let closeInput: (() => Promise<void>) | undefined;
  let stopKeepingHeap: (() => void) | undefined;
  try {
    if (resuming) {
      const loaded = await loadJournal(resumePath, (record) => {
        if ('ok' in record) {
          for (const [index, id, status] of record.ok) report?.write({ index, id, status } satisfies ReportLine);
        } else {
          report?.write({ index: record.fail, line: record.line, error: record.error, statusCode: record.statusCode } satisfies ReportLine);
          failedFile?.add(typeof record.raw === 'string' ? record.raw : undefined, () => failedLine(record.entry, record.fail, record.line, record.error));
          noteError({ index: record.fail, line: record.line, error: record.error });
        }
      }, `${name('journal')} ${resumePath}`, outputsDrained);
      done = loaded.done;
      checkpoints = loaded.checkpoints;
      if (!o.dryRun) journal = Journal.reopen(resumePath, loaded.validBytes);
    } else if (header) {
      // A new run that claims its first request syncs the journal then, before sending anything.
      journal = Journal.create(resumePath ?? join(o.journalDir, `${runId}.journal`), header, claims);
      if (resumePath !== undefined) rememberJournal(o.journalDir, resumePath, runId);
      // A new run's journal is held as a resumed one's is (runBatch): `batch journals prune --force`
      // must not delete it while it is being sent.
      else newJournalLock = JournalLock.acquire(journal.path, { subject: journal.path, holder: 'a mailroom batch', createDir: false });
    }
    summary.journal = journal?.path ?? null;

    closeInput = input.close;
    if (input.error !== undefined) throw input.error;
    failedFile?.start(input.format);
    const keyFor = (index: number) => idempotencyKeyFor(runId, index);
    const progress: BatchProgress = {
      read: 0,
      sent: 0,
      failed: 0,
      skipped: 0,
      bytesRead: 0,
      bytesTotal: source.size,
      startedAt,
      concurrency: o.concurrency,
    };
    let concurrencyNow = () => o.concurrency;
    const tick = (final = false) => {
      if (!o.onProgress) return;
      progress.concurrency = concurrencyNow();
      progress.read = summary.total;
      progress.sent = summary.sent;
      progress.failed = summary.failed;
      progress.skipped = summary.skipped;
      progress.bytesRead = input.counter.bytes;
      o.onProgress(progress, final);
    };

    const onInvalid = (e: InvalidEntry) => {
      summary.failed += 1;
      summary.invalid += 1;
      report?.write({ index: e.index, line: e.line, error: e.error } satisfies ReportLine);
      failedFile?.add(e.raw, () => failedLine(e.entry, e.index, e.line, e.error));
      noteError({ index: e.index, line: e.line, error: e.error });
    };
    const onDuplicate = (index: number, line: number, of: number) => {
      summary.duplicates += 1;
      report?.write({ index, line, duplicateOf: of } satisfies ReportLine);
    };
    const onDone = (state: number) => {
      if (state === DONE_OK) summary.skipped += 1;
      else summary.failed += 1;
    };
    stopKeepingHeap = heapKeeper();
    // Stdin cannot be fingerprinted before it is read: each entry's hash goes in the journal instead.
    const hashing = source.path === undefined || (resuming && header?.fingerprint === null);
    const chunks = chunkEntries(input.items, {
      inputDiffers: (detail) => inputDiffers(name('journal'), detail),
      size: o.size,
      summary,
      done,
      hashing,
      checkpoints,
      journal,
      onDone,
      onDuplicate,
      onInvalid,
      prepare: failedFile
        ? (item, index) => {
            // Only a run writing --failed keeps each entry's text, until the entry is settled.
            failedFile.setHeader(item.rawHeader);
            return withRaw(prepareEntry(item, index, o.defaults, keyFor, now), item.raw);
          }
        : (item, index) => prepareEntry(item, index, o.defaults, keyFor, now),
      outputsDrained,
      ...(claims && journal
        ? {
            claimFirst: (mark: CheckpointRecord, digestAt: (index: number) => string | undefined, publish: () => void) => {
              let published = false;
              try {
                claimFirstRequest({ dir: o.journalDir, api: o.api!, runId, newRun: Boolean(o.newRun), seen, ...named, wording }, mark, digestAt, () => {
                  published = true;
                  publish();
                });
              } catch (err) {
                if (!published) refused = err;
                throw err;
              }
              report?.begin();
              failedFile?.begin();
            },
          }
        : {}),
    });

    if (o.dryRun || !o.send) {
      for await (const _chunk of chunks) {
        tick();
        if (ctx.signal.aborted) break;
      }
      summary.interrupted = ctx.signal.aborted;
    } else {
      const outcome = await sendAll(o, ctx, chunks, {
        journal,
        report,
        failedFile,
        summary,
        keyFor,
        noteError,
        tick: () => tick(),
        watchConcurrency: (current) => (concurrencyNow = current),
      });
      if (outcome.fatal) summary.fatal = outcome.fatal;
      summary.interrupted = ctx.signal.aborted && !outcome.finished;
    }
    tick(true);
  } catch (err) {
    // Bad input found while reading (a broken JSON structure, a CSV quote): stop, keep what was done.
    if (err instanceof MailroomError) summary.fatal = err;
    else throw err;
  } finally {
    // A run that stopped early (Ctrl-C, a fatal error, a refused resume) leaves the input part-read:
    // its file is closed now, not when the garbage collector finds the handle.
    await closeInput?.().catch(() => undefined);
    stopKeepingHeap?.();
    markFinished(journal, summary);
    if (refused !== undefined) {
      // As a refusal before reading: --report and --failed as they were.
      report?.abandon();
      failedFile?.abandon();
    }
    for (const file of refused === undefined ? [journal, report, failedFile] : [journal]) {
      try {
        file?.close();
      } catch (err) {
        summary.fatal ??= isMailroomError(err) ? err : new MailroomError('unexpected', `closing ${file?.path}: ${String(err)}`, { cause: err });
      }
    }
    if (refused !== undefined && journal) forget(journal.path, resumePath === undefined ? undefined : join(o.journalDir, `${runId}.journal`));
    newJournalLock?.release();
  }
  // Refused before its first request: as the refusals before reading, an error, not a summary.
  if (refused !== undefined) throw refused;
  summary.unsent = summary.total - summary.sent - summary.failed - summary.skipped - summary.duplicates;
  summary.durationMs = clock.now() - startedAt;
  summary.emailsPerSecond = summary.durationMs > 0 ? Math.round((summary.sent / summary.durationMs) * 1000 * 10) / 10 : 0;
  return summary;
}

/**
 * The journal's last record, once a run left nothing for a resume to send: every entry read was
 * accepted, refused, invalid or a duplicate (none interrupted, uncertain or stopped by an error).
 */
function markFinished(journal: Journal | undefined, summary: BatchSummary): void {
  if (!journal || summary.fatal || summary.interrupted || summary.uncertain > 0) return;
  if (summary.total - summary.sent - summary.failed - summary.skipped - summary.duplicates !== 0) return;
  try {
    journal.append({ finished: new Date().toISOString(), total: summary.total });
  } catch (err) {
    // A full disk at the very end: the run's records are whole; it is only not marked finished.
    if (!isMailroomError(err)) throw err;
  }
}

/** A refused run's journal (it recorded no request) and its link in the state directory: gone, so no listing shows a run that never was. */
function forget(journal: string, link: string | undefined): void {
  for (const path of [link, journal]) {
    if (path === undefined) continue;
    try {
      unlinkSync(path);
    } catch {
      // Already gone.
    }
  }
}

async function* noChunks(): AsyncGenerator<Buffer> {}

/** The input's entries, opened; a failure to open (not text, an unreadable stream) is kept for the run to report as it reads. */
interface Entries {
  items: AsyncIterable<InputItem>;
  format: InputFormat;
  counter: ReadCounter;
  close(): Promise<void>;
  error?: unknown;
}

async function openEntries(o: BatchRunOptions, source: InputSource): Promise<Entries> {
  if (o.entries !== undefined) return { items: entryItems(o.entries), counter: { bytes: 0 }, format: 'ndjson', close: async () => undefined };
  try {
    return await readInput(source, o.format, (o.wording ?? FIELD_WORDING).ndjsonHint);
  } catch (error) {
    return { items: entryItems([]), counter: { bytes: 0 }, format: 'ndjson', close: async () => undefined, error };
  }
}

/** The input file, or `-` (undefined too): the caller's stdin, refused when it has none. */
function openInput(o: BatchRunOptions, cwd: string): Promise<InputSource> {
  if (o.stdio) return openSource(o.input, cwd, o.stdio);
  if (o.input === undefined || o.input === '-') throw usageError('no input: give a path, the entries or a stream of them');
  // A path: openSource reads no stream.
  return openSource(o.input, cwd, { in: Readable.from([]), isStdinTTY: false });
}

/** A prepared entry with its text as read, for `--failed`. */
function withRaw(entry: PreparedEntry | Promise<PreparedEntry>, raw: string | undefined): PreparedEntry | Promise<PreparedEntry> {
  if (raw === undefined) return entry;
  if (entry instanceof Promise) return entry.then((e) => Object.assign(e, { raw }));
  entry.raw = raw;
  return entry;
}

/** Values as input items; an entry's "line" is its position, from 1. */
async function* entryItems(entries: AsyncIterable<unknown> | Iterable<unknown>): AsyncGenerator<InputItem> {
  let line = 0;
  for await (const value of entries) yield { value, line: ++line };
}

interface Sinks {
  journal: Journal | undefined;
  report: NdjsonWriter | undefined;
  failedFile: FailedEntries | undefined;
  summary: BatchSummary;
  keyFor: (index: number) => string;
  noteError: (e: EntryError) => void;
  tick: () => void;
  watchConcurrency: (current: () => number) => void;
}

async function sendAll(o: BatchRunOptions, ctx: BatchEnv, chunks: AsyncGenerator<ValidEntry[]>, s: Sinks) {
  const { summary, report, failedFile, journal } = s;
  // A record that cannot be written (a full disk) stops the run: no new request, those in flight
  // settle. What they sent is not journaled; a resume resends it under the same keys.
  const guarded = (write: () => void) => {
    try {
      write();
    } catch (err) {
      if (!isMailroomError(err)) throw err;
      sender.stop(err);
    }
  };
  // Successes of one answer are journaled as one record, written once the answer is fully handled.
  let okBatch: OkRecord['ok'] = [];
  const flushOk = () => {
    if (okBatch.length === 0) return;
    const record = { ok: okBatch };
    okBatch = [];
    guarded(() => journal?.append(record));
  };
  const emailOf = (e: ValidEntry): Record<string, unknown> => {
    const email = { ...e.email } as Record<string, unknown>;
    if (email.idempotencyKey === s.keyFor(e.index)) delete email.idempotencyKey;
    return email;
  };
  const rejected = (e: ValidEntry, failure: { error: string; statusCode?: number }) => {
    const entry = emailOf(e);
    guarded(() =>
      journal?.append({
        fail: e.index,
        line: e.line,
        error: failure.error,
        ...(failure.statusCode ? { statusCode: failure.statusCode } : {}),
        entry,
        ...(e.inputHash === undefined ? {} : { h: e.inputHash }),
        ...(e.raw === undefined ? {} : { raw: e.raw }),
      }),
    );
    guarded(() => report?.write({ index: e.index, line: e.line, error: failure.error, statusCode: failure.statusCode } satisfies ReportLine));
    guarded(() => failedFile?.add(e.raw, () => failedLine(entry, e.index, e.line, failure.error)));
    summary.failed += 1;
    s.noteError({ index: e.index, line: e.line, error: failure.error });
    s.tick();
  };
  const sender: BatchSender = new BatchSender({
    ...o.retry,
    ...(ctx.clock ? { clock: ctx.clock } : {}),
    send: o.send!,
    concurrency: o.concurrency,
    signal: ctx.signal,
    events: {
      sent(e: ValidEntry, result: EmailResult) {
        if (okBatch.length === 0) queueMicrotask(flushOk);
        const id = result.id ?? result.messageId ?? '';
        okBatch.push(e.inputHash === undefined ? [e.index, id, String(result.status)] : [e.index, id, String(result.status), e.inputHash]);
        // No closure per entry when there is no --report (the common run).
        if (report) guarded(() => report.write({ index: e.index, id, status: String(result.status) } satisfies ReportLine));
        summary.sent += 1;
        if (result.status === 'SCHEDULED') summary.scheduled += 1;
        s.tick();
      },
      rejected,
      uncertain(e, reason) {
        // Not journaled: a resume resends it under the same key, which the API deduplicates. Nor in
        // --failed: the API may have it, and a new run of that file would send it under a new key.
        guarded(() => report?.write({ index: e.index, line: e.line, error: reason } satisfies ReportLine));
        summary.failed += 1;
        summary.uncertain += 1;
        s.noteError({ index: e.index, line: e.line, error: reason });
        s.tick();
      },
      unsent() {
        // Counted at the end: every entry read and not settled.
      },
    },
  });
  s.watchConcurrency(() => sender.concurrency);
  try {
    return await sender.run(chunks);
  } finally {
    flushOk();
  }
}
