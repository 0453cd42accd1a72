import type { Readable, Writable } from 'node:stream';
import type { MailroomError } from '../errors.js';
import type { InputFormat } from '../input/detect.js';
import type { EntryDefaults } from '../input/entries.js';
import type { NamedPath } from '../output/targets.js';
import type { BatchEntryError, BatchProgress as PublicBatchProgress, BatchSummary as PublicBatchSummary } from '../types.js';
import type { ApiIdentity } from './journal.js';
import type { Clock, SendBatch } from './sender.js';
import type { BatchWording } from './wording.js';

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

export type EntryError = BatchEntryError;

/** What a run returns: the library's summary (src/types.ts), and what stopped the run early, if anything. */
export interface BatchSummary extends PublicBatchSummary {
  /** Set when the run stopped early: what stopped it (its exit code wins). */
  fatal?: MailroomError;
}
