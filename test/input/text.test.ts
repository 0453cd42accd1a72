import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { checkText, firstInvalidUtf8, readCapped, TextChecker } from '../../src/input/text.js';

const pushAll = (bytes: Buffer, size: number) => {
  const checker = new TextChecker('in');
  for (let i = 0; i < bytes.length; i += size) checker.push(bytes.subarray(i, i + size));
  checker.end();
};

describe('text input: UTF-8 without NUL', () => {
  it('finds the first byte that begins no well-formed sequence', () => {
    expect(firstInvalidUtf8(Buffer.from('café € 𝄞'))).toBe(-1);
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xc0, 0xaf]))).toBe(1); // overlong
    expect(firstInvalidUtf8(Buffer.from([0xed, 0xa0, 0x80]))).toBe(0); // surrogate
    expect(firstInvalidUtf8(Buffer.from([0xf4, 0x90, 0x80, 0x80]))).toBe(0); // past U+10FFFF
    expect(firstInvalidUtf8(Buffer.from([0x61, 0x62, 0xe2, 0x82]))).toBe(2); // cut short
  });

  it('names the label and the byte offset, and the earlier of a NUL and a bad byte', () => {
    expect(() => checkText(Buffer.from([0x61, 0xff, 0x00]), 'f')).toThrow('f: not UTF-8 text: invalid byte 0xff at byte offset 1');
    expect(() => checkText(Buffer.from([0x61, 0x00, 0xff]), 'f')).toThrow('f: a NUL byte at byte offset 1: binary data, not text');
  });

  it('accepts valid text split anywhere, a character across chunks included', () => {
    const text = Buffer.from('to,subject\na@example.com,café 𝄞 €\n'.repeat(3));
    for (const size of [1, 2, 3, 5, 7, text.length]) expect(() => pushAll(text, size)).not.toThrow();
  });

  it('gives the same offset whatever the chunking', () => {
    const bad = Buffer.concat([Buffer.from('ok é ok\n'), Buffer.from([0xe2, 0x28, 0xa1]), Buffer.from('rest')]);
    for (const size of [1, 2, 3, 4, bad.length]) expect(() => pushAll(bad, size)).toThrow('in: not UTF-8 text: invalid byte 0xe2 at byte offset 9');
    const cut = Buffer.concat([Buffer.from('abc'), Buffer.from([0xf0, 0x9d, 0x84])]);
    for (const size of [1, 2, cut.length]) expect(() => pushAll(cut, size)).toThrow('in: not UTF-8 text: the input ends inside a character at byte offset 3');
    const nul = Buffer.from('abc\0');
    for (const size of [1, 3, 4]) expect(() => pushAll(nul, size)).toThrow('in: a NUL byte at byte offset 3');
  });

  it('stops reading stdin one byte past the limit', async () => {
    let pulled = 0;
    const endless = new Readable({
      read() {
        pulled += 1024;
        this.push(Buffer.alloc(1024, 0x61));
      },
    });
    await expect(readCapped('-', '--file', '/', endless, 10_000)).rejects.toThrow('--file (stdin): larger than 10000 bytes');
    expect(pulled).toBeLessThan(64 * 1024);
  });
});
