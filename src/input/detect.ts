import { open, stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { IO } from '../context.js';
import { usageError } from '../errors.js';
import { fsReason } from '../files.js';
import { readCsvItems } from './csv.js';
import { readJsonItems, type InputItem } from './json-stream.js';
import type { Grouped } from './item-groups.js';
import { readNdjsonItems } from './ndjson.js';
import { TextChecker } from './text.js';

export const FORMATS = ['json', 'ndjson', 'csv'] as const;
export type InputFormat = (typeof FORMATS)[number];

const BY_EXTENSION: Record<string, InputFormat> = { '.json': 'json', '.ndjson': 'ndjson', '.jsonl': 'ndjson', '.csv': 'csv' };
/** How much of the input detection may look at before deciding. */
const PEEK_LIMIT = 64 * 1024;

export interface InputSource {
  /** The file's absolute path, or undefined for stdin. */
  path: string | undefined;
  /** How messages name the input: the path as given, or "stdin". */
  label: string;
  /** Bytes in the file (undefined for stdin), for progress estimates. */
  size: number | undefined;
  chunks: AsyncIterable<Buffer | string>;
}

/** Bytes consumed so far; read by the progress display. */
export interface ReadCounter {
  bytes: number;
}

/** Opens `<file|->`: a file relative to cwd, or stdin when `-` or omitted and stdin is piped (only then is `io.in` touched: it sets up a stream). */
export async function openSource(spec: string | undefined, cwd: string, io: Pick<IO, 'in' | 'isStdinTTY'>): Promise<InputSource> {
  if (spec === undefined || spec === '-') {
    if (io.isStdinTTY) throw usageError('no input: give a file, or pipe emails into stdin', ['mailroom batch emails.ndjson', 'generate-emails | mailroom batch -']);
    return { path: undefined, label: 'stdin', size: undefined, chunks: io.in };
  }
  const path = resolve(cwd, spec);
  let size: number;
  try {
    const s = await stat(path);
    size = s.size;
    if (s.isDirectory()) throw Object.assign(new Error('directory'), { code: 'EISDIR' });
  } catch (err) {
    throw usageError(`cannot read ${spec}: ${fsReason(err, 'read')}`);
  }
  return { path, label: spec, size, chunks: readFileChunks(path) };
}

/**
 * Reads a file through one reused buffer (64 KiB unless told). Each chunk is decoded to text before
 * the next read, so no buffer outlives its read: a stream's fresh buffer per chunk piles up outside
 * the heap until a full GC, which on a million-entry file doubled peak memory.
 */
export async function* readFileChunks(path: string, bufferSize = 64 * 1024): AsyncGenerator<Buffer> {
  const handle = await open(path, 'r');
  const buf = Buffer.allocUnsafe(bufferSize);
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, buf.length, null);
      if (bytesRead === 0) return;
      yield buf.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/**
 * Text is handed on in slices of at least 1 KiB, growing to 64 KiB as a thirty-second of what was
 * read so far: small at first, where the progress bar's estimate of the total rests on few bytes,
 * and few over a large file, each slice a trip through the readers' async generators.
 */
const sliceAfter = (consumed: number) => Math.min(64 * 1024, Math.max(1024, consumed >> 5));

/** Decodes a byte stream to text chunks, counting bytes as they are consumed; refuses what is not UTF-8 text. */
async function* decode(stream: AsyncIterator<unknown>, counter: ReadCounter, label: string): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  const checker = new TextChecker(label);
  try {
    for (;;) {
      const next = await stream.next();
      if (next.done) break;
      const chunk = next.value;
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      // Handed on in small slices and counted once the reader asks for the next one, so the count
      // is of bytes consumed, a little behind the parser, never ahead of it: the progress bar
      // estimates the entry total from it, and must not underestimate it.
      for (let at = 0, size = sliceAfter(counter.bytes); at < buf.length; at += size, size = sliceAfter(counter.bytes)) {
        const slice = buf.subarray(at, at + size);
        checker.push(slice);
        const text = decoder.write(slice);
        if (text) yield text;
        counter.bytes += slice.length;
      }
    }
  } finally {
    // A reader that stops early (Ctrl-C, a refused resume, bad input) ends the file's read too:
    // its handle is closed now, not left to the garbage collector.
    await stream.return?.();
  }
  checker.end();
  const tail = decoder.end();
  if (tail) yield tail;
}

async function* prepend(head: string, rest: AsyncIterator<string>): AsyncGenerator<string> {
  try {
    if (head) yield head;
    for (;;) {
      const next = await rest.next();
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await rest.return?.();
  }
}

/**
 * Decides the format: `--format` if given, else the file extension, else the content: `[` is a JSON
 * array; `{` is NDJSON when the first line is a complete object (without an `emails` array) or too
 * long to peek at and no `"emails"` key shows, otherwise `{ "emails": [...] }`; anything else is CSV.
 */
export function detectFormat(forced: InputFormat | undefined, path: string | undefined, head: string): InputFormat {
  if (forced) return forced;
  const byExt = path ? BY_EXTENSION[extname(path).toLowerCase()] : undefined;
  if (byExt) return byExt;
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('[')) return 'json';
  if (text.startsWith('{')) {
    const nl = text.indexOf('\n');
    const first = nl === -1 ? text : text.slice(0, nl);
    try {
      const value = JSON.parse(first) as Record<string, unknown>;
      return Array.isArray(value.emails) ? 'json' : 'ndjson';
    } catch {
      // No whole first line within the peek: NDJSON with a long first entry, unless a wrapper's "emails" key shows.
      if (nl === -1) return /[{,]\s*"emails"\s*:/.test(text) ? 'json' : 'ndjson';
      return 'json';
    }
  }
  return 'csv';
}

export interface OpenedInput {
  format: InputFormat;
  items: Grouped<InputItem>;
  counter: ReadCounter;
  /** Ends the read where it is (the file is closed), whether or not `items` was started or finished. */
  close(): Promise<void>;
}

/** Peeks at the start of the source, picks the format and returns its item stream. */
export async function readInput(source: InputSource, forced: InputFormat | undefined, ndjsonHint?: string): Promise<OpenedInput> {
  const counter: ReadCounter = { bytes: 0 };
  const text = decode(source.chunks[Symbol.asyncIterator](), counter, source.label);
  let head = '';
  while (head.length < PEEK_LIMIT) {
    const next = await text.next();
    if (next.done) break;
    head += next.value;
    const trimmed = head.trimStart();
    // Enough to decide: a first character that is not `{`, or a whole first line.
    if (trimmed !== '' && (!trimmed.startsWith('{') || trimmed.includes('\n'))) break;
  }
  const format = detectFormat(forced, source.path, head);
  const chunks = prepend(head, text);
  const items: Grouped<InputItem> = format === 'json' ? readJsonItems(chunks, source.label, ndjsonHint) : format === 'ndjson' ? readNdjsonItems(chunks, source.label) : readCsvItems(chunks, source.label);
  // The peek above started the read: a run that stops before (or while) reading the items ends it here.
  const close = async () => {
    await items.return(undefined);
    await items.groups?.().return(undefined);
    await text.return(undefined);
  };
  return { format, items, counter, close };
}
