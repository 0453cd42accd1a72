import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { MailroomError, isMailroomError, usageError } from '../errors.js';
import { openSource, readInput, type InputFormat, type InputSource } from '../input/detect.js';
import { prepareEntry, type EntryDefaults, type InvalidEntry, type PreparedEntry, type ValidEntry } from '../input/entries.js';
import type { InputItem } from '../input/json-stream.js';
import type { EmailResult } from '../schema/index.js';
import { checkOutputs, type NamedPath, type OutputTargets } from '../output/targets.js';
import { JournalLock } from '../output/lock.js';
import { oneLine } from '../output/one-line.js';
import type { BatchProgress as PublicBatchProgress } from '../types.js';
import { earlierRunsOf, rememberJournal, rerunRefusal } from './earlier-runs.js';
import { fingerprintFile } from './fingerprint.js';
import { heapKeeper } from './memory.js';
import { DONE_OK, DoneSet, inputHash, Journal, loadJournal, newRunId, readJournalHeader, type ApiIdentity, type JournalHeader, type OkRecord } from './journal.js';
import { FailedEntries, failedLine, NdjsonWriter, type ReportLine } from './entry-reports.js';
import { BatchSender, realClock, type Clock, type SendBatch } from './sender.js';
import { FIELD_WORDING, type BatchField, type BatchWording } from './wording.js';

/**
 * What the engine needs of whoever runs it: where relative paths start, when to stop, where notes
 * go. No terminal, no program: the CLI and the library each give theirs.
 */
export interface BatchEnv {
  cwd: string;
  /** Stops starting requests; those in flight settle and are journaled. */
  signal: AbortSignal;
  /** A note that does not stop the run (the CLI prints it on stderr unless -q; the library drops it). */
  warn: (message: string) => void;
  /** The sender's clock (tests step it); the real one by default. */
  clock?: Clock;
}

/**
 * A run's live counts, as `onProgress` gets them: the library's public BatchProgress plus what a
 * progress bar needs to estimate the total (`bytesTotal`, a file's size) and the rate.
 */
export interface BatchProgress extends PublicBatchProgress {
  bytesRead: number;
  /** Input size in bytes, when it is a file. */
  bytesTotal: number | undefined;
  startedAt: number;
}

export interface BatchRunOptions {
  /** A path, or `-` (or undefined) for `stdio.in` (unless `entries` or `stream` is given). */
  input: string | undefined;
  /** Entries as values, one email each (the library's emails.batch): read instead of `input`, like stdin. */
  entries?: AsyncIterable<unknown>;
  /** Bytes in any of the input formats (the library's emails.batch): read instead of `input`, like stdin. */
  stream?: AsyncIterable<Buffer | string>;
  /** How messages name `entries` or `stream`. */
  label?: string;
  format?: InputFormat;
  defaults: EntryDefaults;
  size: number;
  concurrency: number;
  report?: string;
  failed?: string;
  resume?: string;
  /** Files read besides the input (the CLI's --html-file): never written. */
  otherInputs?: NamedPath[];
  /** The streams `-` names (the CLI's stdin and stdout, read only if used); without them `-` names none. */
  stdio?: { in: Readable; out: Writable; isStdinTTY: boolean };
  /** How messages name options and the way to finish a run; the field names by default. */
  wording?: BatchWording;
  dryRun: boolean;
  /** Directory of journals when `resume` names none. */
  journalDir: string;
  /** Required unless dryRun. */
  send?: SendBatch;
  /** Where `send` sends; recorded in a new journal, checked against a resumed one. */
  api?: ApiIdentity;
  /** Send an input again although a journal in `journalDir` records a run of it to the same API. */
  newRun?: boolean;
  /** Resume a journal made against another host / with another key anyway. */
  allowOtherHost?: boolean;
  allowOtherKey?: boolean;
  /** Called as entries settle; `final` once at the end. */
  onProgress?: (progress: BatchProgress, final: boolean) => void;
  now?: () => Date;
  /** Retry tuning (tests shorten it). */
  retry?: { maxAttempts?: number; backoffMs?: number };
}

export interface EntryError {
  index: number;
  line: number;
  error: string;
}

export interface BatchSummary {
  total: number;
  /** Accepted by the API: sent now or, with a sendAt in the future, scheduled. */
  sent: number;
  /** Of `sent`: accepted as SCHEDULED (a sendAt in the future), not sent yet. */
  scheduled: number;
  failed: number;
  /** Of `failed`: entries that failed local validation (never sent). */
  invalid: number;
  /** Of `failed`: entries given up on after retries; the API may have them, a resume settles them. */
  uncertain: number;
  /** Sent by an earlier run of the same journal. */
  skipped: number;
  /** Entries repeating an earlier entry's own idempotencyKey with identical content: not sent again. */
  duplicates: number;
  /** Read but not sent because the run stopped (Ctrl-C or a fatal error). */
  unsent: number;
  durationMs: number;
  emailsPerSecond: number;
  runId: string;
  journal: string | null;
  report?: string;
  failedFile?: string;
  dryRun: boolean;
  interrupted: boolean;
  /** The first few entry errors, for the summary. */
  errors: EntryError[];
  /** Set when the run stopped early: what stopped it (its exit code wins). */
  fatal?: MailroomError;
  /** True when a journal was resumed. */
  resumed: boolean;
}

const FIRST_ERRORS = 10;

export const idempotencyKeyFor = (runId: string, index: number): string => `mr-${runId}-${index}`;

/** What the journal pins besides the input: flags that change the emails sent under each key. */
function defaultsDigest(d: EntryDefaults): Record<string, string | undefined> {
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
 * One `mailroom batch` run: reads the input as a stream, validates each entry, sends the valid
 * ones in chunks, and records where every entry ended up (journal, report, failed file, counts).
 */
export async function runBatch(ctx: BatchEnv, o: BatchRunOptions): Promise<BatchSummary> {
  const targets = checkPaths(ctx, o);
  // One run per journal for its whole life: a second run, or a second resume, would send twice.
  const lock = o.resume !== undefined && !o.dryRun ? JournalLock.acquire(resolve(ctx.cwd, o.resume)) : undefined;
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
    return target === 'stdout' ? new NdjsonWriter('-', flag, o.stdio!.out) : new NdjsonWriter(target.path, flag);
  };
  const source: InputSource =
    o.entries !== undefined || o.stream !== undefined
      ? { path: undefined, label: o.label ?? 'the input', size: undefined, chunks: o.stream ?? noChunks() }
      : await openInput(o, ctx.cwd);
  const resumePath = o.resume === undefined ? undefined : resolve(ctx.cwd, o.resume);
  const resuming = resumePath !== undefined && existsSync(resumePath) && statSync(resumePath).size > 0;
  const digest = defaultsDigest(o.defaults);

  let header: JournalHeader | undefined;
  if (resuming && o.newRun) {
    throw usageError(`${name('newRun')} starts a new run, and ${name('journal')} ${resumePath} continues the run of that journal: give one of them`);
  }
  if (resuming) {
    header = await readJournalHeader(resumePath, `${name('journal')} ${resumePath}`);
    await checkSameRun(ctx, wording, header, source.path, digest, resumePath);
    if (!o.dryRun) checkSameApi(wording, header, o, resumePath);
  } else if (!o.dryRun) {
    const fingerprint = source.path ? await fingerprintFile(source.path, source.label) : null;
    if (fingerprint !== null && o.api) await checkNotSentBefore(ctx, wording, o, fingerprint, o.api);
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

  const report = writerFor(name('report'));
  const failedOut = writerFor(name('failed'));
  const failedFile = failedOut ? new FailedEntries(failedOut) : undefined;
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
      }, `${name('journal')} ${resumePath}`);
      done = loaded.done;
      checkpoints = loaded.checkpoints;
      if (!o.dryRun) journal = Journal.reopen(resumePath, loaded.validBytes);
    } else if (header) {
      journal = Journal.create(resumePath ?? join(o.journalDir, `${runId}.journal`), header);
      if (resumePath !== undefined) rememberJournal(o.journalDir, resumePath, runId);
      // A new run's journal is held as a resumed one's is (runBatch): `batch journals prune --force`
      // must not delete it while it is being sent.
      else newJournalLock = JournalLock.acquire(journal.path, { subject: journal.path, holder: 'a mailroom batch', createDir: false });
    }
    summary.journal = journal?.path ?? null;

    const input = o.entries !== undefined ? { items: entryItems(o.entries), counter: { bytes: 0 }, format: 'ndjson' as const, close: async () => undefined } : await readInput(source, o.format);
    closeInput = input.close;
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
    const keepHeap = heapKeeper();
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
      keepHeap,
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
    markFinished(journal, summary);
    for (const file of [journal, report, failedFile]) {
      try {
        file?.close();
      } catch (err) {
        summary.fatal ??= isMailroomError(err) ? err : new MailroomError('unexpected', `closing ${file?.path}: ${String(err)}`, { cause: err });
      }
    }
    newJournalLock?.release();
  }
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

async function* noChunks(): AsyncGenerator<Buffer> {}

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
async function* entryItems(entries: AsyncIterable<unknown>): AsyncGenerator<InputItem> {
  let line = 0;
  for await (const value of entries) yield { value, line: ++line };
}

/**
 * A new run of an input that an earlier run (its journal in the state directory) sent to the same
 * host with the same key would send it all again: refused unless `newRun`, which only notes it.
 */
async function checkNotSentBefore(ctx: BatchEnv, wording: BatchWording, o: BatchRunOptions, fingerprint: string, api: ApiIdentity): Promise<void> {
  const runs = await earlierRunsOf(o.journalDir, fingerprint, api);
  if (runs === undefined) return;
  if (!o.newRun) throw rerunRefusal(runs, o.input ?? '-', wording);
  ctx.warn(`${wording.name('newRun')}: sending again what ${oneLine(runs.newest.path)} records as sent (${runs.newest.sent.toLocaleString('en-US')})`);
}

/** Refuses to resume a journal against other input or other defaults: its keys would be reused for different emails. */
async function checkSameRun(ctx: BatchEnv, { name }: BatchWording, header: JournalHeader, path: string | undefined, digest: Record<string, string | undefined>, journalPath: string): Promise<void> {
  if (header.fingerprint && path) {
    const now = await fingerprintFile(path);
    if (now !== header.fingerprint) {
      throw usageError(`${name('journal')} ${journalPath}: the input is not the file this journal was made from (${header.input})`, [
        `a journal resumes only the input it was made from; if the file changed since, what that run sent is in the journal (and its ${name('report')}): send only the entries it did not, as a file of their own`,
      ]);
    }
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

/** Refuses to resume against another host or key: the keys already used live on the journal's API. */
function checkSameApi({ name }: BatchWording, header: JournalHeader, o: BatchRunOptions, journalPath: string): void {
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

interface ChunkOptions {
  /** The refusal of a resume whose input is not its run's. */
  inputDiffers: (detail: string) => MailroomError;
  size: number;
  summary: BatchSummary;
  done: DoneSet;
  hashing: boolean;
  /** The resumed journal's input hashes by index; empty for a new run. */
  checkpoints: Map<number, string>;
  /** Where to record a checkpoint before each chunk is sent (none in --dry-run). */
  journal: Journal | undefined;
  onDone: (state: number) => void;
  onDuplicate: (index: number, line: number, of: number) => void;
  onInvalid: (e: InvalidEntry) => void;
  prepare: (item: InputItem, index: number) => PreparedEntry | Promise<PreparedEntry>;
  keepHeap: () => void;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const ownKey = (v: unknown): string | undefined => (isRecord(v) && typeof v.idempotencyKey === 'string' && v.idempotencyKey !== '' ? v.idempotencyKey : undefined);

const inputDiffers = (journal: string, detail: string) =>
  usageError(`${journal}: the input differs from the run being resumed (${detail})`, [
    'resume with the same input, in the same order (a changed stretch would pair used keys with other emails); nothing more was sent',
  ]);

/**
 * Groups valid entries into requests of `size`, routing skipped and invalid entries as they pass.
 * On a resume, the input must be the one the journal's run read: a running hash of every entry is
 * compared with the journal's checkpoints, and no entry is sent before the checkpoint covering it
 * matched, so a changed, inserted or missing entry stops the run before any key is reused for it.
 */
async function* chunkEntries(items: AsyncIterable<InputItem>, c: ChunkOptions): AsyncGenerator<ValidEntry[]> {
  let ready: ValidEntry[] = [];
  const running = c.journal || c.checkpoints.size > 0 ? createHash('sha256') : undefined;
  let lastCheckpoint = -1;
  for (const upTo of c.checkpoints.keys()) lastCheckpoint = Math.max(lastCheckpoint, upTo);
  let verifiedUpTo = -1;
  let index = -1;
  /** Entries' own idempotency keys: the first entry with each, and a digest of its content. */
  const ownKeys = new Map<string, { index: number; digest: string }>();
  /** Entries up to this index may be sent: verified, or past everything the journal's run read. */
  const sendable = () => (index >= lastCheckpoint ? Infinity : verifiedUpTo);
  // The entries' text goes to the running hash a chunk at a time (hashing pieces one after another
  // is hashing them joined): one native call per chunk instead of two per entry.
  let unhashed = '';
  const checkpoint = () => {
    running!.update(unhashed);
    unhashed = '';
    return running!.copy().digest('hex').slice(0, 32);
  };
  const take = (n: number) => {
    const chunk = ready.slice(0, n);
    ready = ready.slice(n);
    if (running && c.journal) c.journal.append({ upTo: index, sha: checkpoint() });
    return chunk;
  };
  for await (const item of items) {
    index = c.summary.total;
    c.summary.total += 1;
    if ((index & 63) === 0) c.keepHeap();
    const text = c.hashing || running ? (JSON.stringify(item.value ?? item.error) ?? '') : undefined;
    const hash = c.hashing ? inputHash(text!) : undefined;
    if (running) {
      unhashed += `${text!}\n`;
      // Bounded, for the entries a resume skips without a chunk in between.
      if (unhashed.length > 65_536) {
        running.update(unhashed);
        unhashed = '';
      }
      const recorded = c.checkpoints.get(index);
      if (recorded !== undefined) {
        if (checkpoint() !== recorded) throw c.inputDiffers(`at or before entry ${index}, line ${item.line}`);
        verifiedUpTo = index;
      }
    }
    const state = c.done.get(index);
    const key = ownKey(item.value);
    const first = key === undefined ? undefined : ownKeys.get(key);
    const digest = key === undefined ? undefined : createHash('sha256').update(text ?? JSON.stringify(item.value)).digest('base64');
    if (key !== undefined && first === undefined) ownKeys.set(key, { index, digest: digest! });
    if (state !== 0) {
      const recorded = c.done.hash(index);
      if (hash !== undefined && recorded !== undefined && recorded !== hash) throw c.inputDiffers(`entry ${index}, line ${item.line}, is not the entry the journal recorded there`);
      c.onDone(state);
      continue;
    }
    if (first !== undefined) {
      // The API answers a repeated key with the first email's result: a repeat would never be sent.
      if (first.digest === digest) c.onDuplicate(index, item.line, first.index);
      else {
        c.onInvalid({
          ok: false,
          index,
          line: item.line,
          error: `idempotencyKey "${key}" is also entry ${first.index}'s, with other content: the API would answer with that email and send nothing`,
          ...(isRecord(item.value) ? { entry: item.value } : {}),
        });
      }
      continue;
    }
    const prepared = c.prepare(item, index);
    const entry = prepared instanceof Promise ? await prepared : prepared;
    if (!entry.ok) {
      c.onInvalid(entry);
      continue;
    }
    if (hash !== undefined) entry.inputHash = hash;
    ready.push(entry);
    const limit = sendable();
    while (ready.length >= c.size && ready[c.size - 1]!.index <= limit) yield take(c.size);
  }
  if (index < lastCheckpoint) throw c.inputDiffers(`it ends at entry ${index}; the run being resumed read up to entry ${lastCheckpoint}`);
  while (ready.length > 0) yield take(c.size);
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
        guarded(() => report?.write({ index: e.index, id, status: String(result.status) } satisfies ReportLine));
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
