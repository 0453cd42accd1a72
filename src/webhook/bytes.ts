import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { usageError } from '../errors.js';

/**
 * Reads a `<file|->` flag as raw bytes. Signatures cover bytes, so unlike input/sources.ts's text
 * reader nothing is decoded: a stray BOM or invalid UTF-8 must change the result, not vanish.
 */
export async function readBytes(spec: string, flag: string, cwd: string, stdin: AsyncIterable<Buffer | string>): Promise<Buffer> {
  if (spec === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    return Buffer.concat(chunks);
  }
  try {
    return await readFile(resolve(cwd, spec));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : String(code ?? err);
    throw usageError(`${flag}: cannot read ${spec}: ${why}`);
  }
}
