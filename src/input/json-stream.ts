import { usageError } from '../errors.js';
import { isStringifiedForm } from './canonical-json.js';
import { readInGroups, type Grouped } from './item-groups.js';
import { locateJsonError } from './json-text.js';
import { INPUT_LIMIT, locatedError, sizeWords } from './text.js';

/** One element of the input: its parsed value, or why it could not be parsed, and where it began. */
export interface InputItem {
  value?: unknown;
  error?: string;
  line: number;
  /** The entry's text as read (an NDJSON line, a JSON element, a CSV row): what `batch --failed` writes back. */
  raw?: string;
  /** CSV: the header row as read, which a `--failed` file of CSV rows starts with. */
  rawHeader?: string;
  /** The entry's JSON text when it is exactly JSON.stringify(value) (canonical-json.ts): the batch hashes it as it is. */
  json?: string;
}

type Phase =
  | 'start' // before the first token
  | 'key' // in the wrapper object, expecting a key or `}`
  | 'keyString' // inside a key's quotes
  | 'colon' // after a key
  | 'emailsValue' // after `"emails":`, expecting `[`
  | 'skipValue' // another member's value, skipped
  | 'afterMember' // after a member of the wrapper object, expecting `,` or `}`
  | 'elemStart' // in the array, expecting an element or `]`
  | 'elem' // inside an element
  | 'end'; // after the top-level value: only whitespace may follow

const WS = new Set([0x20, 0x0a, 0x0d, 0x09, 0xfeff]);

/**
 * Finds the elements of a top-level JSON array, or of the `emails` array of a top-level object,
 * chunk by chunk, holding only the element being read. It tracks nesting and strings to find each
 * element's end, then hands the element's text to JSON.parse: the native parser does the hard part,
 * and a malformed element is reported on its own while the rest of the input still streams.
 * (stream-json would do it too, at several times the CPU per element; the bench target is tight.)
 */
export class JsonArrayScanner {
  /** How to read the input as NDJSON, in the caller's words (the CLI's flag by default). */
  constructor(private readonly ndjsonHint = 'use --format ndjson') {}
  private phase: Phase = 'start';
  private wrapped = false;
  private sawEmails = false;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private text = '';
  private line = 1;
  private itemLine = 1;
  private itemColumn = 1;
  /** Characters before the current chunk, where the current line began, and where the scan is (for columns). */
  private pos = 0;
  private lineStart = 0;
  private at = 0;

  /** Scans one chunk, pushing every element it completes onto `out`. Throws on broken structure. */
  push(s: string, out: InputItem[]): void {
    try {
      this.scan(s, out);
    } finally {
      this.pos += s.length;
    }
  }

  private scan(s: string, out: InputItem[]): void {
    const n = s.length;
    let i = 0;
    while (i < n) {
      if (this.phase === 'elem' || this.phase === 'skipValue') {
        const start = i;
        const stop = this.scanValue(s, i);
        if (stop === n) {
          if (this.phase === 'elem') {
            this.text += s.slice(start, n);
            if (this.text.length > INPUT_LIMIT) throw this.fail(`an element longer than ${sizeWords(INPUT_LIMIT)} (it began at line ${this.itemLine}), more than the API takes for one email`);
          }
          return;
        }
        this.at = this.pos + stop;
        this.endValue(s.slice(start, stop), s.charCodeAt(stop), out);
        i = stop + 1;
        continue;
      }
      if (this.phase === 'keyString') {
        const start = i;
        i = this.scanString(s, i);
        this.text += s.slice(start, i);
        if (!this.inString) {
          this.phase = 'colon';
          i += 1;
        }
        continue;
      }
      const c = s.charCodeAt(i);
      if (WS.has(c)) {
        if (c === 0x0a) {
          this.line += 1;
          this.lineStart = this.pos + i + 1;
        }
        i += 1;
        continue;
      }
      this.at = this.pos + i;
      if (this.structural(c)) i += 1;
    }
  }

  /** Called at the end of the input; throws when the JSON stopped half-way. */
  finish(): void {
    this.at = this.pos;
    if (this.phase === 'start' || this.phase === 'end') return;
    if (this.phase === 'elem' || this.phase === 'elemStart') {
      throw this.fail(`the JSON array is not closed (missing "]"; last element began at line ${this.itemLine})`);
    }
    throw this.fail('the JSON ends early: the top-level object is not closed');
  }

  /** Handles one non-space character outside values; returns false when it begins an element (not consumed). */
  private structural(c: number): boolean {
    const ch = String.fromCharCode(c);
    switch (this.phase) {
      case 'start':
        if (c === 0x5b) this.phase = 'elemStart';
        else if (c === 0x7b) {
          this.wrapped = true;
          this.phase = 'key';
        } else throw this.fail(`expected a JSON array or an object with "emails", found "${ch}"`);
        return true;
      case 'key':
        if (c === 0x22) {
          this.text = '';
          this.inString = true;
          this.phase = 'keyString';
        } else if (c === 0x7d) this.closeWrapper();
        else throw this.fail(`expected a key in the top-level object, found "${ch}"`);
        return true;
      case 'colon': {
        if (c !== 0x3a) throw this.fail(`expected ":" after a key, found "${ch}"`);
        let key: string;
        try {
          key = JSON.parse(`"${this.text}"`) as string;
        } catch {
          throw this.fail('a key in the top-level object is not a valid JSON string');
        }
        this.text = '';
        this.depth = 0;
        this.phase = key === 'emails' ? 'emailsValue' : 'skipValue';
        return true;
      }
      case 'emailsValue':
        if (c !== 0x5b) throw this.fail('"emails" must be an array');
        this.sawEmails = true;
        this.phase = 'elemStart';
        return true;
      case 'afterMember':
        if (c === 0x2c) this.phase = 'key';
        else if (c === 0x7d) this.closeWrapper();
        else throw this.fail(`expected "," or "}" in the top-level object, found "${ch}"`);
        return true;
      case 'elemStart':
        if (c === 0x5d) {
          this.closeArray();
          return true;
        }
        this.phase = 'elem';
        this.itemLine = this.line;
        this.itemColumn = this.at - this.lineStart + 1;
        this.text = '';
        this.depth = 0;
        return false;
      case 'end':
        throw this.fail(`unexpected "${ch}" after the end of the JSON (one object per line is NDJSON: ${this.ndjsonHint})`);
      default:
        throw this.fail(`unexpected "${ch}"`);
    }
  }

  /**
   * Scans a value up to the `,` or closing bracket at nesting depth 0, outside strings. Returns the
   * delimiter's index, or the chunk's length when the value goes on into the next chunk.
   */
  private scanValue(s: string, i: number): number {
    const n = s.length;
    const close = this.phase === 'elem' ? 0x5d : 0x7d;
    while (i < n) {
      if (this.inString) {
        i = this.scanString(s, i);
        if (!this.inString) i += 1;
        continue;
      }
      const c = s.charCodeAt(i);
      if (c === 0x22) this.inString = true;
      else if (c === 0x7b || c === 0x5b) this.depth += 1;
      else if ((c === 0x7d || c === 0x5d) && this.depth > 0) this.depth -= 1;
      else if (c === 0x0a) {
        this.line += 1;
        this.lineStart = this.pos + i + 1;
      } else if (this.depth === 0 && (c === 0x2c || c === close)) return i;
      i += 1;
    }
    return n;
  }

  /** Advances through a string's characters; stops at the closing quote (not consumed) or the chunk's end. */
  private scanString(s: string, i: number): number {
    const n = s.length;
    if (this.escaped) {
      this.escaped = false;
      i += 1;
    }
    while (i < n) {
      const c = s.charCodeAt(i);
      if (c === 0x5c) {
        if (i + 1 >= n) {
          this.escaped = true;
          return n;
        }
        i += 2;
        continue;
      }
      if (c === 0x22) {
        this.inString = false;
        return i;
      }
      i += 1;
    }
    return n;
  }

  /** A value ended at delimiter `c`; `tail` is its text in the current chunk. */
  private endValue(tail: string, c: number, out: InputItem[]): void {
    if (this.phase === 'skipValue') {
      if (c === 0x2c) this.phase = 'key';
      else this.closeWrapper();
      return;
    }
    const text = (this.text + tail).trim();
    this.text = '';
    out.push(parseElement(text, this.itemLine, this.itemColumn));
    if (c === 0x2c) this.phase = 'elemStart';
    else this.closeArray();
  }

  private closeArray(): void {
    this.phase = this.wrapped ? 'afterMember' : 'end';
  }

  private closeWrapper(): void {
    if (!this.sawEmails) throw this.fail('the top-level object has no "emails" array');
    this.phase = 'end';
  }

  private fail(message: string) {
    return usageError(`line ${this.line}, column ${Math.max(1, this.at - this.lineStart + 1)}: ${message}`);
  }
}

/**
 * Streams the items of a JSON array (or `{ "emails": [...] }`) from text chunks; a usage error names
 * `label`, the input, first. The items of each piece read come as a group too (item-groups.ts).
 */
export function readJsonItems(chunks: AsyncIterable<string>, label?: string, ndjsonHint?: string): Grouped<InputItem> {
  const scanner = new JsonArrayScanner(ndjsonHint);
  return readInGroups(chunks, { take: (chunk, out) => scanner.push(chunk, out), finish: () => scanner.finish() }, (err) => locatedError(err, label));
}

function parseElement(text: string, line: number, column: number): InputItem {
  if (text === '') return { line, error: 'empty array element', raw: text };
  try {
    const value: unknown = JSON.parse(text);
    return { line, value, raw: text, json: isStringifiedForm(text, value) ? text : undefined };
  } catch {
    const e = locateJsonError(text);
    const where = e.line === 1 ? `line ${line}, column ${column + e.offset}` : `line ${line + e.line - 1}, column ${e.column}`;
    return { line, error: `not valid JSON at ${where}: ${e.problem}`, raw: text };
  }
}
