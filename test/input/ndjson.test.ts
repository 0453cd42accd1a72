import { describe, expect, it } from 'vitest';
import { readNdjsonItems } from '../../src/input/ndjson.js';
import { chunksOf, collect } from './readers-helpers.js';

describe('NDJSON reader', () => {
  it('yields one item per non-blank line with its line number, across chunk boundaries and CRLF', async () => {
    const text = '{"to":"a@example.com"}\r\n\n  \n{"to":"b@example.com","s":"é✓"}\n{"to": "c@example.com"}';
    for (const size of [1, 3, text.length]) {
      const items = await collect(readNdjsonItems(chunksOf(text, size)));
      expect(items).toEqual([
        // `json`: the line without its line end when it is JSON.stringify's text of the value (hashed as it is).
        { line: 1, value: { to: 'a@example.com' }, raw: '{"to":"a@example.com"}\r', json: '{"to":"a@example.com"}' },
        { line: 4, value: { to: 'b@example.com', s: 'é✓' }, raw: '{"to":"b@example.com","s":"é✓"}', json: '{"to":"b@example.com","s":"é✓"}' },
        { line: 5, value: { to: 'c@example.com' }, raw: '{"to": "c@example.com"}', json: undefined },
      ]);
    }
  });

  it('reports a line that is not JSON and goes on', async () => {
    const items = await collect(readNdjsonItems(chunksOf('{"to":"a@example.com"}\n{oops\n{"to":"c@example.com"}\n', 4)));
    expect(items).toHaveLength(3);
    expect(items[1]).toMatchObject({ line: 2, error: expect.stringMatching(/not valid JSON/), raw: '{oops' });
    expect(items[2]).toEqual({ line: 3, value: { to: 'c@example.com' }, raw: '{"to":"c@example.com"}', json: '{"to":"c@example.com"}' });
  });
});
