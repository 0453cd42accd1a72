import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { detectFormat, readInput } from '../../src/input/detect.js';
import { collect } from './readers-helpers.js';

describe('format detection', () => {
  it('prefers --format, then the extension, then the first non-space character', () => {
    expect(detectFormat('csv', 'x.json', '[')).toBe('csv');
    expect(detectFormat(undefined, '/tmp/x.jsonl', '')).toBe('ndjson');
    expect(detectFormat(undefined, '/tmp/x.CSV', '[')).toBe('csv');
    expect(detectFormat(undefined, undefined, ' \n [{"to":1}]')).toBe('json');
    expect(detectFormat(undefined, undefined, '{"to":"a@example.com"}\n{"to":"b@example.com"}\n')).toBe('ndjson');
    expect(detectFormat(undefined, undefined, '{"to":"a@example.com"}')).toBe('ndjson');
    expect(detectFormat(undefined, undefined, '{"emails":[{"to":"a@example.com"}]}\n')).toBe('json');
    expect(detectFormat(undefined, undefined, '{\n  "emails": [\n')).toBe('json');
    expect(detectFormat(undefined, '/tmp/data.txt', 'to,subject\n')).toBe('csv');
  });

  it('reads piped input after peeking at it, without losing the peeked bytes', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ to: `u${i}@example.com` })).join('\n');
    const stream = Readable.from([Buffer.from(lines.slice(0, 10)), Buffer.from(lines.slice(10, 50_000)), Buffer.from(lines.slice(50_000))]);
    const input = await readInput({ path: undefined, label: 'stdin', size: undefined, chunks: stream }, undefined);
    expect(input.format).toBe('ndjson');
    const items = await collect(input.items);
    expect(items).toHaveLength(3000);
    expect(items[2999]!.value).toEqual({ to: 'u2999@example.com' });
    expect(input.counter.bytes).toBe(Buffer.byteLength(lines));
  });

  it('detects NDJSON piped with a first line longer than the peek, and a long one-line { "emails" } as JSON', async () => {
    const html = `<p>${'x'.repeat(100_000)}</p>`;
    const ndjson = [0, 1].map((i) => JSON.stringify({ to: `u${i}@example.com`, html })).join('\n');
    const pieces = (text: string) => Readable.from(Array.from({ length: Math.ceil(text.length / 16_384) }, (_, i) => Buffer.from(text.slice(i * 16_384, (i + 1) * 16_384))));
    const piped = await readInput({ path: undefined, label: 'stdin', size: undefined, chunks: pieces(ndjson) }, undefined);
    expect(piped.format).toBe('ndjson');
    expect((await collect(piped.items)).map((i) => (i.value as { to: string }).to)).toEqual(['u0@example.com', 'u1@example.com']);
    const wrapped = JSON.stringify({ emails: [{ to: 'a@example.com', html }] });
    const one = await readInput({ path: undefined, label: 'stdin', size: undefined, chunks: pieces(wrapped) }, undefined);
    expect(one.format).toBe('json');
    expect(await collect(one.items)).toHaveLength(1);
  });

  it('decodes multi-byte characters split across chunks', async () => {
    const bytes = Buffer.from('[{"to":"a@example.com","s":"héllo ✓"}]');
    const stream = Readable.from([bytes.subarray(0, 32), bytes.subarray(32, 35), bytes.subarray(35)]);
    const input = await readInput({ path: undefined, label: 'stdin', size: undefined, chunks: stream }, undefined);
    expect((await collect(input.items))[0]!.value).toEqual({ to: 'a@example.com', s: 'héllo ✓' });
  });
});
