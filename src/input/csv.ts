import { Readable } from 'node:stream';
import { usageError } from '../errors.js';
import type { InputItem } from './json-stream.js';

const BOOLEAN: Record<string, boolean> = { true: true, false: false, yes: true, no: false, '1': true, '0': false };
const SETTINGS = new Set(['trackClicks', 'trackOpens']);

/**
 * Streams CSV with csv-parse: the header row names the fields, `var.<name>` columns go to
 * `variables`, `prop.<name>` to `contactProperties`, `settings.trackClicks|trackOpens` to `settings`
 * (true/false/yes/no/1/0); an empty cell means the field is absent.
 */
export async function* readCsvItems(chunks: AsyncIterable<string>): AsyncGenerator<InputItem> {
  const { parse } = await import('csv-parse');
  const parser = parse({ bom: true, relax_column_count: true, skip_empty_lines: true, info: true });
  const source = Readable.from(chunks);
  source.on('error', (err) => parser.destroy(err));
  source.pipe(parser);
  let header: string[] | undefined;
  // csv-parse counts a CRLF inside a quoted cell as two lines; its count drifts by one per such CRLF.
  let overcount = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      for (const cell of record) if (cell.includes('\r\n')) overcount += cell.split('\r\n').length - 1;
      if (!header) {
        header = record.map((h) => h.trim());
        checkHeader(header);
        continue;
      }
      yield rowToItem(header, record, info.lines - overcount);
    }
  } catch (err) {
    if (err instanceof Error && 'code' in err && String((err as { code: unknown }).code).startsWith('CSV_')) {
      throw usageError(`CSV: ${err.message}`);
    }
    throw err;
  }
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
      ((entry[key] ??= {}) as Record<string, string>)[field] = cell;
    } else if (group === 'settings' && SETTINGS.has(field)) {
      const flag = BOOLEAN[cell.trim().toLowerCase()];
      if (flag === undefined) return { line, error: `${name}: "${cell}" is not true or false` };
      ((entry.settings ??= {}) as Record<string, boolean>)[field] = flag;
    } else {
      entry[name] = cell;
    }
  }
  return { line, value: entry };
}
