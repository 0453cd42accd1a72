import { describe, expect, it } from 'vitest';
import { readNdjsonItems } from '../../src/input/ndjson.js';
import { chunksOf, collect } from './readers-helpers.js';

describe('NDJSON reader', () => {
  it('yields one item per non-blank line with its line number, across chunk boundaries and CRLF', async () => {
    const text = '{"to":"a@example.com"}\r\n\n  \n{"to":"b@example.com","s":"é✓"}\n{"to":"c@example.com"}';
    for (const size of [1, 3, text.length]) {
      const items = await collect(readNdjsonItems(chunksOf(text, size)));
      expect(items).toEqual([
        { line: 1, value: { to: 'a@example.com' }, raw: '{"to":"a@example.com"}\r' },
        { line: 4, value: { to: 'b@example.com', s: 'é✓' }, raw: '{"to":"b@example.com","s":"é✓"}' },
        { line: 5, value: { to: 'c@example.com' }, raw: '{"to":"c@example.com"}' },
      ]);
    }
  });

  it('reports a line that is not JSON and goes on', async () => {
    const items = await collect(readNdjsonItems(chunksOf('{"to":"a@example.com"}\n{oops\n{"to":"c@example.com"}\n', 4)));
    expect(items).toHaveLength(3);
    expect(items[1]).toMatchObject({ line: 2, error: expect.stringMatching(/not valid JSON/), raw: '{oops' });
    expect(items[2]).toEqual({ line: 3, value: { to: 'c@example.com' }, raw: '{"to":"c@example.com"}' });
  });
});
