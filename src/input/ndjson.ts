import { usageError } from '../errors.js';
import { isStringifiedForm } from './canonical-json.js';
import { locateJsonError } from './json-text.js';
import type { InputItem } from './json-stream.js';
import { INPUT_LIMIT, locatedError, sizeWords } from './text.js';

const tooLong = (line: number) => usageError(`line ${line}: longer than ${sizeWords(INPUT_LIMIT)}, more than the API takes for one email`);

/**
 * Streams NDJSON: one JSON value a line, blank lines skipped, each item tagged with its line number.
 * A line longer than the input limit stops the read (it is not an email, and holding it costs memory).
 * A usage error names `label`, the input, first.
 */
export async function* readNdjsonItems(chunks: AsyncIterable<string>, label?: string): AsyncGenerator<InputItem> {
  try {
    let rest = '';
    let line = 0;
    for await (const chunk of chunks) {
      let text = rest + chunk;
      let start = 0;
      let nl = text.indexOf('\n', start);
      while (nl !== -1) {
        line += 1;
        if (nl - start > INPUT_LIMIT) throw tooLong(line);
        const item = parseLine(text.slice(start, nl), line);
        if (item) yield item;
        start = nl + 1;
        nl = text.indexOf('\n', start);
      }
      rest = text.slice(start);
      text = '';
      if (rest.length > INPUT_LIMIT) throw tooLong(line + 1);
    }
    if (rest !== '') {
      const item = parseLine(rest, line + 1);
      if (item) yield item;
    }
  } catch (err) {
    throw locatedError(err, label);
  }
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
