import { createReadStream } from 'node:fs';
import { usageError } from '../errors.js';
import { fsReason } from '../files.js';
import { DONE_FAILED, DONE_OK, DoneSet } from './done-set.js';
import type { CheckpointRecord, EndRecord, FailRecord, JournalHeader, OkRecord } from './journal.js';

/**
 * The header alone, read before anything else so a mismatch is refused before any file is touched.
 * `named` is how messages name the file (the engine: the option that gave it).
 */
export async function readJournalHeader(path: string, named: string = path): Promise<JournalHeader> {
  let first = '';
  try {
    for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 16 * 1024 })) {
      first += chunk as string;
      if (first.includes('\n') || first.length > 1024 * 1024) break;
    }
  } catch (err) {
    throw usageError(`${named}: cannot read it: ${fsReason(err, 'read')}`);
  }
  const nl = first.indexOf('\n');
  let header: Partial<JournalHeader> | undefined;
  try {
    header = JSON.parse(nl === -1 ? first : first.slice(0, nl)) as Partial<JournalHeader>;
  } catch {
    header = undefined;
  }
  if (nl === -1 || header?.mailroom !== 'batch-journal' || header.v !== 1 || typeof header.runId !== 'string') {
    throw usageError(`${named}: not a mailroom batch journal`);
  }
  return header as JournalHeader;
}

export interface LoadedJournal {
  header: JournalHeader;
  done: DoneSet;
  /** Input hashes by entry index (see CheckpointRecord). */
  checkpoints: Map<number, string>;
  /** Bytes up to the end of the last complete record: the rest is a torn write to cut. */
  validBytes: number;
  /** The last record is an EndRecord: its run left nothing unsent. */
  finished?: EndRecord;
}

/**
 * Reads a journal line by line (memory holds one line and the DoneSet), handing each record to
 * `onRecord` (to rewrite the report). A last line without its newline or not parseable is a write
 * torn by a kill: ignored and cut. A bad line anywhere else means the file is not ours. `named` is
 * how messages name the file; `drained`, when given, is awaited between pieces of the file.
 */
export async function loadJournal(path: string, onRecord: (record: OkRecord | FailRecord) => void, named: string = path, drained?: () => Promise<void> | undefined): Promise<LoadedJournal> {
  const done = new DoneSet();
  const checkpoints = new Map<number, string>();
  let header: JournalHeader | undefined;
  let finished: EndRecord | undefined;
  let validBytes = 0;
  let lineNo = 0;
  let pendingError: string | undefined;
  let rest = Buffer.alloc(0);
  const handle = (raw: Buffer) => {
    lineNo += 1;
    if (pendingError) throw usageError(`${named}: line ${lineNo - 1} is damaged (${pendingError}); this is not a journal mailroom can resume`);
    let record: unknown;
    try {
      record = JSON.parse(raw.toString('utf8'));
    } catch (err) {
      pendingError = err instanceof Error ? err.message : String(err);
      return;
    }
    if (!header) {
      const h = record as Partial<JournalHeader>;
      if (h.mailroom !== 'batch-journal' || h.v !== 1 || typeof h.runId !== 'string') {
        throw usageError(`${named}: not a mailroom batch journal`);
      }
      header = h as JournalHeader;
    } else if (isOk(record)) {
      finished = undefined;
      for (const [index, , , hash] of record.ok) done.mark(index, DONE_OK, hash);
      onRecord(record);
    } else if (isFail(record)) {
      finished = undefined;
      done.mark(record.fail, DONE_FAILED, record.h);
      onRecord(record);
    } else if (isCheckpoint(record)) {
      finished = undefined;
      checkpoints.set(record.upTo, record.sha);
    } else if (isEnd(record)) {
      finished = record;
    } else {
      pendingError = 'unknown record';
      return;
    }
    validBytes += raw.length + 1;
  };
  let stream;
  try {
    stream = createReadStream(path);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let buf = rest.length ? Buffer.concat([rest, chunk]) : chunk;
      let nl = buf.indexOf(0x0a);
      while (nl !== -1) {
        handle(buf.subarray(0, nl));
        buf = buf.subarray(nl + 1);
        nl = buf.indexOf(0x0a);
      }
      rest = Buffer.from(buf);
      // What onRecord wrote (a report to a slow pipe) is taken before the next piece is read.
      const waiting = drained?.();
      if (waiting) await waiting;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code) throw usageError(`${named}: cannot read it: ${fsReason(err)}`);
    throw err;
  }
  // A torn last line (no newline, or a partial record) is dropped: its request is resent.
  if (!header) throw usageError(`${named}: the journal has no header line; it is not a journal mailroom can resume`);
  return finished ? { header, done, checkpoints, validBytes, finished } : { header, done, checkpoints, validBytes };
}

function isEnd(r: unknown): r is EndRecord {
  return typeof r === 'object' && r !== null && typeof (r as EndRecord).finished === 'string' && typeof (r as EndRecord).total === 'number';
}

function isOk(r: unknown): r is OkRecord {
  return typeof r === 'object' && r !== null && Array.isArray((r as OkRecord).ok);
}

function isCheckpoint(r: unknown): r is CheckpointRecord {
  return typeof r === 'object' && r !== null && typeof (r as CheckpointRecord).upTo === 'number' && typeof (r as CheckpointRecord).sha === 'string';
}

function isFail(r: unknown): r is FailRecord {
  return typeof r === 'object' && r !== null && typeof (r as FailRecord).fail === 'number';
}
