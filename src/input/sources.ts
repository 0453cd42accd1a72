import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { usageError } from '../errors.js';

/** Reads a `<path|->` flag value: `-` is stdin (input/stdin.ts's stdinFor), anything else a file relative to the working directory. */
export async function readSource(spec: string, flag: string, cwd: string, stdin: AsyncIterable<Buffer | string>): Promise<string> {
  if (spec === '-') return readAll(stdin);
  try {
    return await readFile(resolve(cwd, spec), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : String(code ?? err);
    throw usageError(`${flag}: cannot read ${spec}: ${why}`);
  }
}

async function readAll(stream: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Parses a flag's JSON that must be an object; one line naming the flag when it is not. */
export function parseJsonObject(text: string, flag: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw usageError(`${flag}: not valid JSON (${why})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw usageError(`${flag}: must be a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`);
  }
  return value as Record<string, unknown>;
}
