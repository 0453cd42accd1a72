import { readCapped } from '../input/text.js';

/**
 * Reads a `<file|->` flag as raw bytes, at most the input limit (input/text.ts). Signatures cover
 * bytes, so unlike the text reader nothing is decoded or checked: a stray BOM or invalid UTF-8 must
 * change the result, not vanish.
 */
export function readBytes(spec: string, flag: string, cwd: string, stdin: AsyncIterable<Buffer | string>): Promise<Buffer> {
  return readCapped(spec, flag, cwd, stdin);
}
