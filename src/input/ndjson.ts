import { usageError } from '../errors.js';
import { isStringifiedForm } from './canonical-json.js';
import { locateJsonError } from './json-text.js';
import { readInGroups, type Grouped, type PieceReader } from './item-groups.js';
import type { InputItem } from './json-stream.js';
import { INPUT_LIMIT, locatedError, sizeWords } from './text.js';

const tooLong = (line: number) => usageError(`line ${line}: longer than ${sizeWords(INPUT_LIMIT)}, more than the API takes for one email`);

/**
 * Streams NDJSON: one JSON value a line, blank lines skipped, each item tagged with its line number.
 * A line longer than the input limit stops the read (it is not an email, and holding it costs memory).
 * A usage error names `label`, the input, first. The items of each piece read come as a group too
 * (item-groups.ts).
 */
export function readNdjsonItems(chunks: AsyncIterable<string>, label?: string): Grouped<InputItem> {
  let rest = '';
  let line = 0;
  const lines: PieceReader<InputItem> = {
    take(chunk, out) {
      const text = rest + chunk;
      let start = 0;
      let nl = text.indexOf('\n', start);
      while (nl !== -1) {
        line += 1;
        if (nl - start > INPUT_LIMIT) throw tooLong(line);
        const item = parseLine(text.slice(start, nl), line);
        if (item) out.push(item);
        start = nl + 1;
        nl = text.indexOf('\n', start);
      }
      rest = text.slice(start);
      if (rest.length > INPUT_LIMIT) throw tooLong(line + 1);
    },
    finish(out) {
      const item = rest === '' ? undefined : parseLine(rest, line + 1);
      if (item) out.push(item);
    },
  };
  return readInGroups(chunks, lines, (err) => locatedError(err, label));
}

function parseLine(raw: string, line: number): InputItem | undefined {
  const text = raw.trim();
  if (text === '') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return { line, value, raw, json: isStringifiedForm(text, value) ? text : undefined };
  } catch {
    const e = locateJsonError(text);
    const column = e.offset + raw.length - raw.trimStart().length + 1;
    return { line, error: `not valid JSON at column ${column}: ${e.problem}`, raw };
  }
}
