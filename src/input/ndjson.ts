import type { InputItem } from './json-stream.js';

/** Streams NDJSON: one JSON value a line, blank lines skipped, each item tagged with its line number. */
export async function* readNdjsonItems(chunks: AsyncIterable<string>): AsyncGenerator<InputItem> {
  let rest = '';
  let line = 0;
  for await (const chunk of chunks) {
    let text = rest + chunk;
    let start = 0;
    let nl = text.indexOf('\n', start);
    while (nl !== -1) {
      line += 1;
      const item = parseLine(text.slice(start, nl), line);
      if (item) yield item;
      start = nl + 1;
      nl = text.indexOf('\n', start);
    }
    rest = text.slice(start);
    text = '';
  }
  if (rest !== '') {
    const item = parseLine(rest, line + 1);
    if (item) yield item;
  }
}

function parseLine(raw: string, line: number): InputItem | undefined {
  const text = raw.trim();
  if (text === '') return undefined;
  try {
    return { line, value: JSON.parse(text) };
  } catch (err) {
    return { line, error: `not valid JSON (${err instanceof Error ? err.message : String(err)})` };
  }
}
