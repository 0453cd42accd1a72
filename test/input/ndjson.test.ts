import { describe, expect, it } from 'vitest';
import type { InputItem } from '../../src/input/json-stream.js';
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

  it('gives the same items in groups, one per piece read; the lines before a broken read come before its error, as one by one', async () => {
    const text = '{"to":"a@example.com"}\n{"to":"b@example.com"}\n{"to":"c@example.com"}\n';
    const groups: InputItem[][] = [];
    for await (const group of readNdjsonItems(chunksOf(text, 30)).groups!()) groups.push(group);
    expect(groups.flat()).toEqual(await collect(readNdjsonItems(chunksOf(text, 30))));
    expect(groups.map((g) => g.length)).toEqual([1, 1, 1]);

    async function* failing(): AsyncGenerator<string> {
      yield '{"to":"a@example.com"}\n{"to":"b@example.com"}\n{"to":';
      throw Object.assign(new Error('disk gone'), { code: 'EIO' });
    }
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const group of readNdjsonItems(failing(), 'in.ndjson').groups!()) seen.push(...group.map((i) => i.line));
      })(),
    ).rejects.toThrow();
    expect(seen).toEqual([1, 2]);
    // A line over the limit in the same piece as the lines before it: those still come first.
    const { INPUT_LIMIT } = await import('../../src/input/text.js');
    const long = `{"to":"a@example.com"}\n{"to":"b@example.com"}\n"${'x'.repeat(INPUT_LIMIT + 1)}"\n`;
    const before: number[] = [];
    await expect(
      (async () => {
        for await (const group of readNdjsonItems(chunksOf(long, long.length), 'in.ndjson').groups!()) before.push(...group.map((i) => i.line));
      })(),
    ).rejects.toThrow(/line 3: longer than/);
    expect(before).toEqual([1, 2]);
    const one: number[] = [];
    await expect(
      (async () => {
        for await (const item of readNdjsonItems(failing(), 'in.ndjson')) one.push(item.line);
      })(),
    ).rejects.toThrow();
    expect(one).toEqual([1, 2]);
  });
});
