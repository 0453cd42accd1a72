import { readFile } from 'node:fs/promises';
import { appendText } from '../output/files.js';
import { usageError } from '../errors.js';

/**
 * The listener's journal: one NDJSON line per request received, in arrival order, with the raw
 * body and the headers as sent, so `webhooks replay` can re-deliver exactly what arrived. The
 * signature is kept (it is not secret); the token never is, and credentials some proxy might add
 * (Authorization, Cookie) are redacted.
 */
export interface JournalEntry {
  receivedAt: string;
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  /** The raw body; absent when it was refused for its size. */
  body?: string;
  /** `base64` when the body bytes are not valid UTF-8 (so `body` round-trips exactly). */
  bodyEncoding?: 'base64';
  status: number;
  verified: boolean;
  event?: string;
  reason?: string;
}

export const REDACTED_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie']);

export function journalHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = REDACTED_HEADERS.has(name.toLowerCase()) ? '[redacted]' : value;
  }
  return out;
}

export function encodeBody(body: Buffer): Pick<JournalEntry, 'body' | 'bodyEncoding'> {
  const text = body.toString('utf8');
  return Buffer.from(text, 'utf8').equals(body) ? { body: text } : { body: body.toString('base64'), bodyEncoding: 'base64' };
}

export function entryBody(entry: JournalEntry): Buffer | undefined {
  if (entry.body === undefined) return undefined;
  return Buffer.from(entry.body, entry.bodyEncoding === 'base64' ? 'base64' : 'utf8');
}

/** Appends entries one after another, so lines keep arrival order and never interleave. */
export class JournalWriter {
  private tail: Promise<Error | undefined> = Promise.resolve(undefined);

  private constructor(readonly path: string) {}

  /** Checks the file can be appended to before anything is received: a bad path is a usage error. */
  static async open(path: string): Promise<JournalWriter> {
    try {
      await appendText(path, '', 0o600);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such directory' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : String(code ?? err);
      throw usageError(`--journal: cannot write ${path}: ${why}`);
    }
    return new JournalWriter(path);
  }

  /** Resolves with this write's error, if any (the caller decides how loudly to say so). */
  append(entry: JournalEntry): Promise<Error | undefined> {
    this.tail = this.tail.then(() =>
      appendText(this.path, `${JSON.stringify(entry)}\n`, 0o600).then(
        () => undefined,
        (err: Error) => err,
      ),
    );
    return this.tail;
  }
}

export async function readJournal(path: string): Promise<JournalEntry[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw usageError(`--journal: cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : String(code ?? err)}`);
  }
  const entries: JournalEntry[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw usageError(`--journal: line ${i + 1} of ${path} is not JSON`);
    }
    if (!isEntry(value)) throw usageError(`--journal: line ${i + 1} of ${path} is not a listener journal entry`);
    entries.push(value);
  }
  return entries;
}

function isEntry(value: unknown): value is JournalEntry {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.receivedAt === 'string' &&
    typeof v.headers === 'object' &&
    v.headers !== null &&
    typeof v.status === 'number' &&
    typeof v.verified === 'boolean' &&
    (v.body === undefined || typeof v.body === 'string')
  );
}
