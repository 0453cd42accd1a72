import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { usageError } from '../errors.js';
import type { InputItem } from './json-stream.js';
import { INPUT_LIMIT, locatedError, sizeWords } from './text.js';
import { setOwn } from '../schema/own-field.js';

const BOOLEAN: Record<string, boolean> = { true: true, false: false, yes: true, no: false, '1': true, '0': false };
const SETTINGS = new Set(['trackClicks', 'trackOpens']);

/**
 * Streams CSV with csv-parse: the header row names the fields, `var.<name>` columns go to
 * `variables`, `prop.<name>` to `contactProperties`, `settings.trackClicks|trackOpens` to `settings`
 * (true/false/yes/no/1/0); an empty cell means the field is absent. A usage error names `label`, the
 * input, first.
 */
export async function* readCsvItems(chunks: AsyncIterable<string>, label?: string): AsyncGenerator<InputItem> {
  const { parse } = await import('csv-parse');
  // The parser runs ahead of this loop: an error in line 2 can come before the header row is read
  // here, so the header the error message names is caught as the parser makes it.
  let firstRow: string[] | undefined;
  const parser = parse({
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    info: true,
    // Each row's text as read, for `batch --failed` (a row it writes back byte for byte).
    raw: true,
    max_record_size: INPUT_LIMIT,
    // With `info`, csv-parse hands on_record the { record, info } pair.
    on_record: (row: unknown) => {
      firstRow ??= (row as { record: string[] }).record.map((h) => h.trim());
      return row as string[];
    },
  });
  const source = Readable.from(chunks);
  source.on('error', (err) => parser.destroy(err));
  source.pipe(parser);
  let header: string[] | undefined;
  // csv-parse counts a CRLF inside a quoted cell as two lines; its count drifts by one per such CRLF.
  let overcount = 0;
  try {
    let rawHeader = '';
    for await (const { record, info, raw } of parser as AsyncIterable<{ record: string[]; info: { lines: number }; raw: string }>) {
      for (const cell of record) if (cell.includes('\r\n')) overcount += cell.split('\r\n').length - 1;
      if (!header) {
        header = record.map((h) => h.trim());
        checkHeader(header);
        rawHeader = rowText(raw);
        continue;
      }
      // info.lines is where the row ends; a row with quoted line breaks begins that many lines before.
      const text = rowText(raw);
      yield { ...rowToItem(header, record, info.lines - overcount - lineBreaksIn(text)), raw: text, rawHeader };
    }
  } catch (err) {
    // csv-parse's errors carry a code (CSV_..., INVALID_OPENING_QUOTE) and where the parser was.
    if (err instanceof Error && typeof (err as Partial<CsvError>).code === 'string' && 'lines' in err) throw locatedError(usageError(csvProblem(err as CsvError, header ?? firstRow)), label);
    throw locatedError(err, label);
  } finally {
    // Stopped early: the source ends the input's read, and its file handle is closed before we go on.
    source.destroy();
    await finished(source).catch(() => undefined);
  }
}

/**
 * A row's text as read, ending with its line ending: csv-parse's `raw` starts with the empty lines it
 * skipped before the row, and of a CRLF ending keeps only the CR.
 */
function rowText(raw: string): string {
  const row = raw.replace(/^[\r\n]+/, '');
  const body = row.replace(/\r?\n?$/, '').replace(/\r$/, '');
  return `${body}${row.endsWith('\r') || row.endsWith('\r\n') ? '\r\n' : '\n'}`;
}

/** Line breaks inside a row's text, its own ending left out. */
function lineBreaksIn(text: string): number {
  let n = -1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

interface CsvError extends Error {
  code: string;
  lines?: number;
  /** Index of the field the parser was in. */
  column?: number;
}

const CSV_PROBLEMS: Record<string, string> = {
  INVALID_OPENING_QUOTE: 'a quote inside an unquoted field: quote the whole field and double the quotes in it ("x""y""")',
  CSV_INVALID_CLOSING_QUOTE: 'text after a closing quote: double a quote that is part of the field ("x""y""")',
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is never closed',
  CSV_MAX_RECORD_SIZE: `a row larger than ${sizeWords(INPUT_LIMIT)}, more than the API takes for one email`,
};

/** csv-parse's error as one line in mailroom's words: where (line, field and its column name) and what. */
function csvProblem(err: CsvError, header: string[] | undefined): string {
  const field = typeof err.column === 'number' ? err.column : undefined;
  const name = field !== undefined && header?.[field] ? ` ("${header[field]}")` : '';
  const where = [err.lines === undefined ? undefined : `line ${err.lines}`, field === undefined ? undefined : `field ${field + 1}${name}`].filter(Boolean).join(', ');
  return `${where ? `${where}: ` : ''}not valid CSV: ${CSV_PROBLEMS[err.code] ?? err.message}`;
}

function checkHeader(header: string[]): void {
  const seen = new Set<string>();
  for (const name of header) {
    if (name === '') throw usageError('CSV header: a column has no name');
    if (seen.has(name)) throw usageError(`CSV header: column "${name}" appears twice`);
    seen.add(name);
  }
}

export function rowToItem(header: string[], record: string[], line: number): InputItem {
  if (record.length !== header.length) {
    return { line, error: `${record.length} fields where the header has ${header.length}` };
  }
  const entry: Record<string, unknown> = {};
  for (let i = 0; i < header.length; i++) {
    const cell = record[i]!;
    if (cell === '') continue;
    const name = header[i]!;
    const dot = name.indexOf('.');
    const group = dot === -1 ? '' : name.slice(0, dot);
    const field = name.slice(dot + 1);
    if (group === 'var' || group === 'prop') {
      const key = group === 'var' ? 'variables' : 'contactProperties';
      setOwn((entry[key] ??= {}) as Record<string, string>, field, cell);
    } else if (group === 'settings' && SETTINGS.has(field)) {
      const word = cell.trim().toLowerCase();
      const flag = Object.hasOwn(BOOLEAN, word) ? BOOLEAN[word] : undefined;
      if (flag === undefined) return { line, error: `${name}: "${cell}" is not true or false` };
      ((entry.settings ??= {}) as Record<string, boolean>)[field] = flag;
    } else {
      setOwn(entry, name, cell);
    }
  }
  return { line, value: entry };
}
