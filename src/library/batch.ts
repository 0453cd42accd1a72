import { Readable } from 'node:stream';
import { keyFingerprint } from '../batch/fingerprint.js';
import { batchOver } from '../batch/http.js';
import { batchJournalDir, privateStateDir } from '../batch/paths.js';
import type { BatchRunOptions } from '../batch/run-options.js';
import { runBatch } from '../batch/run.js';
import type { EntryDefaults } from '../input/entries.js';
import { parseSendAt } from '../input/time.js';
import type { BatchOptions, BatchSource, BatchSummary } from '../types.js';
import { BatchError, MailroomError, ValidationError } from './public-errors.js';
import type { Connection } from './connection.js';

/** What the library names as the API profile in a journal: resumes compare host and key, not this. */
const PROFILE = '(library)';

/**
 * emails.batch: the `mailroom batch` engine (src/batch/run.ts) with the source and options of a
 * program instead of argv. A file path is read as the CLI reads it (fingerprinted for resumes);
 * values and byte streams are read as piped stdin is (each entry's hash checked on resume).
 */
export async function runLibraryBatch(c: Connection, source: BatchSource, opts: BatchOptions): Promise<BatchSummary> {
  const size = opts.size ?? 50;
  const concurrency = opts.concurrency ?? 4;
  if (!Number.isInteger(size) || size < 1 || size > 50) throw new ValidationError(`emails.batch: size must be an integer from 1 to 50, got ${String(size)}`);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) throw new ValidationError(`emails.batch: concurrency must be an integer from 1 to 64, got ${String(concurrency)}`);

  // The program's onProgress throwing inside the engine would leave requests in flight unjournaled
  // and reject with no summary: it stops the run as an abort does (in-flight requests settle and
  // are journaled), and the call then rejects with BatchError.
  const stop = new AbortController();
  let progressThrew: { err: unknown } | undefined;
  const progressOf = (p: { read: number; sent: number; failed: number; skipped: number; concurrency: number }) => {
    if (progressThrew) return;
    try {
      opts.onProgress!({ read: p.read, sent: p.sent, failed: p.failed, skipped: p.skipped, concurrency: p.concurrency });
    } catch (err) {
      progressThrew = { err };
      stop.abort();
    }
  };

  const input = await inputOf(source);
  const dryRun = opts.dryRun === true;
  const transport = dryRun ? undefined : await c.transport();
  const run: BatchRunOptions = {
    ...input,
    defaults: defaultsOf(opts.defaults),
    size,
    concurrency,
    dryRun,
    // Made (0700) only when a run will write its journal there, as the CLI does.
    journalDir: opts.journal === undefined && !dryRun ? privateStateDir(c.env, 'set MAILROOM_STATE_DIR in the env given to new Mailroom() (or process.env), or pass journal: <a file path>') : batchJournalDir(c.env),
    ...(opts.format ? { format: opts.format } : {}),
    ...(opts.report !== undefined ? { report: opts.report } : {}),
    ...(opts.failed !== undefined ? { failed: opts.failed } : {}),
    ...(opts.journal !== undefined ? { resume: opts.journal } : {}),
    ...(opts.newRun ? { newRun: true } : {}),
    ...(opts.allowOtherHost ? { allowOtherHost: true } : {}),
    ...(opts.allowOtherKey ? { allowOtherKey: true } : {}),
    ...(transport
      ? {
          send: batchOver(transport, opts.timeoutMs),
          // One retry budget: one attempt per request at the transport, the sender retries.
          retry: { maxAttempts: 1 + (opts.maxRetries ?? c.maxRetries) },
          api: { baseUrl: c.baseUrl, key: keyFingerprint(c.apiKey), profile: PROFILE },
        }
      : {}),
    ...(opts.onProgress ? { onProgress: (p) => progressOf(p) } : {}),
  };
  // Notes go nowhere: the summary says what happened; a program has no stderr of ours to read.
  const { fatal, ...summary } = await runBatch({ cwd: process.cwd(), signal: opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal, warn: () => {} }, run);
  if (fatal) throw new BatchError(fatal, summary);
  if (progressThrew) throw new BatchError(new MailroomError('unexpected', `emails.batch: onProgress threw: ${String(progressThrew.err)}`, { cause: progressThrew.err }), summary);
  return summary;
}

type InputOptions = Pick<BatchRunOptions, 'input' | 'entries' | 'stream' | 'label'>;

const isBytes = (v: unknown) => typeof v === 'string' || v instanceof Uint8Array;

/** A path, values, or bytes: decided by the source's type, then by its first element. */
async function inputOf(source: BatchSource): Promise<InputOptions> {
  if (typeof source === 'string') {
    if (source === '' || source === '-') throw new ValidationError('emails.batch: give a file path, or the emails themselves (an array, an iterable or a stream)');
    return { input: source };
  }
  if (source instanceof Readable && !source.readableObjectMode) return { input: undefined, stream: source as AsyncIterable<Buffer | string>, label: 'the stream' };
  const iterator = iteratorOf(source);
  if (!iterator) throw new ValidationError(`emails.batch: the source must be a path, an iterable or an async iterable, got ${source === null ? 'null' : typeof source}`);
  const first = await iterator.next();
  const rest = withFirst(first, iterator);
  if (!first.done && isBytes(first.value)) {
    return { input: undefined, stream: mapValues(rest, (v) => (typeof v === 'string' ? v : Buffer.from(v as Uint8Array))), label: 'the stream' };
  }
  return { input: undefined, entries: mapValues(rest, plainEntry), label: 'the entries' };
}

function iteratorOf(source: unknown): AsyncIterator<unknown> | Iterator<unknown> | undefined {
  if (source === null || typeof source !== 'object') return undefined;
  const s = source as Partial<AsyncIterable<unknown> & Iterable<unknown>>;
  const asyncIterator = s[Symbol.asyncIterator];
  if (typeof asyncIterator === 'function') return asyncIterator.call(s);
  const iterator = s[Symbol.iterator];
  if (typeof iterator === 'function') return iterator.call(s);
  return undefined;
}

async function* withFirst(first: IteratorResult<unknown>, rest: AsyncIterator<unknown> | Iterator<unknown>): AsyncGenerator<unknown> {
  if (first.done) return;
  yield first.value;
  for (;;) {
    const next = await rest.next();
    if (next.done) return;
    yield next.value;
  }
}

async function* mapValues<T>(values: AsyncIterable<unknown>, f: (v: unknown) => T): AsyncGenerator<T> {
  for await (const value of values) yield f(value);
}

/** A Date `sendAt` as the ISO string it means; the entry is otherwise the object given (read like a JSON line). */
function plainEntry(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || !((value as { sendAt?: unknown }).sendAt instanceof Date)) return value;
  const { sendAt, ...rest } = value as { sendAt: Date };
  return { ...rest, sendAt: Number.isNaN(sendAt.getTime()) ? 'Invalid Date' : sendAt.toISOString() };
}

function defaultsOf(d: BatchOptions['defaults'] = {}): EntryDefaults {
  const out: EntryDefaults = {};
  if (d.from !== undefined) out.from = d.from;
  if (d.subject !== undefined) out.subject = d.subject;
  if (d.template !== undefined) out.template = d.template;
  if (d.html !== undefined) out.html = d.html;
  if (d.groupBy !== undefined) out.groupBy = d.groupBy;
  if (d.sendAt !== undefined) {
    const iso = d.sendAt instanceof Date ? d.sendAt.toISOString() : d.sendAt;
    try {
      out.sendAt = parseSendAt(iso, new Date(), 'defaults.sendAt');
    } catch (err) {
      throw new ValidationError(`emails.batch: ${(err as Error).message}`);
    }
  }
  return out;
}
