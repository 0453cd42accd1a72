import { describe, expect, it } from 'vitest';
import { readJsonItems } from '../../src/input/json-stream.js';
import { chunksOf, collect } from './readers-helpers.js';

const entries = [
  { to: 'a@example.com', subject: 'brackets ] } [ { and , commas', html: '<p>"quoted" \\ backslash</p>' },
  { to: 'b@example.com', variables: { list: [1, 2, { deep: ['x'] }], s: 'esc \\" quote' } },
  { to: 'c@example.com', note: 'unicode é ✓ \u2028' },
];

describe('JSON array reader', () => {
  it('yields each element of a top-level array, whatever the chunk boundaries', async () => {
    const text = JSON.stringify(entries, null, 2);
    for (const size of [1, 2, 3, 7, 64, text.length]) {
      const items = await collect(readJsonItems(chunksOf(text, size)));
      expect(items.map((i) => i.value)).toEqual(entries);
    }
  });

  it('yields the elements of { "emails": [...] }, skipping other members before and after', async () => {
    const text = JSON.stringify({ meta: { emails: 'not this', list: [1, { a: '}' }] }, emails: entries, after: [{ x: 1 }] });
    for (const size of [1, 5, text.length]) {
      const items = await collect(readJsonItems(chunksOf(text, size)));
      expect(items.map((i) => i.value)).toEqual(entries);
    }
  });

  it('tags each element with the line it begins on', async () => {
    const text = '[\n  {"to":"a@example.com"},\n\n  {"to":"b@example.com",\n "x": 1},\n  {"to":"c@example.com"}\n]\n';
    const items = await collect(readJsonItems(chunksOf(text, 4)));
    expect(items.map((i) => i.line)).toEqual([2, 4, 6]);
  });

  it('reports a malformed element on its own and goes on', async () => {
    const text = '[{"to":"a@example.com"}, {"to": }, {"to":"c@example.com"}]';
    const items = await collect(readJsonItems(chunksOf(text, 3)));
    expect(items).toHaveLength(3);
    expect(items[0]!.value).toEqual({ to: 'a@example.com' });
    expect(items[1]!.error).toMatch(/not valid JSON/);
    expect(items[2]!.value).toEqual({ to: 'c@example.com' });
  });

  it('reads an empty array as no elements', async () => {
    expect(await collect(readJsonItems(chunksOf('  [ ]  ', 2)))).toEqual([]);
    expect(await collect(readJsonItems(chunksOf('{"emails": []}', 2)))).toEqual([]);
  });

  it('fails with the line when the structure is broken', async () => {
    await expect(collect(readJsonItems(chunksOf('[{"to":"a@example.com"},\n{"to":"b@example.com"}', 5)))).rejects.toThrow(/not closed/);
    await expect(collect(readJsonItems(chunksOf('{"to":"a@example.com"}\n{"to":"b@example.com"}\n', 5)))).rejects.toThrow(/has no "emails" array|--format ndjson/);
    await expect(collect(readJsonItems(chunksOf('[1]\n[2]', 5)))).rejects.toThrow(/^line 2, column 1: unexpected "\[" after the end of the JSON/);
    await expect(collect(readJsonItems(chunksOf('{"emails": {"to": 1}}', 5)))).rejects.toThrow(/"emails" must be an array/);
    await expect(collect(readJsonItems(chunksOf('to,from\n', 5)))).rejects.toThrow(/expected a JSON array/);
  });

  it('holds only the current element: a large input streams through', async () => {
    async function* big(): AsyncGenerator<string> {
      yield '[';
      for (let i = 0; i < 50_000; i++) yield `${i ? ',' : ''}{"to":"u${i}@example.com","html":"<p>${'x'.repeat(100)}</p>"}`;
      yield ']';
    }
    let count = 0;
    let last: unknown;
    for await (const item of readJsonItems(big())) {
      count += 1;
      last = item.value;
    }
    expect(count).toBe(50_000);
    expect(last).toMatchObject({ to: 'u49999@example.com' });
  });
});
