import { usageError } from '../errors.js';
import { parseJsonText } from './json-text.js';
import { INPUT_LIMIT, readText, sourceLabel } from './text.js';

/**
 * Reads a `<path|->` flag value as text: `-` is stdin, anything else a file relative to the working
 * directory; at most `limit` bytes, UTF-8 without NUL (input/text.ts).
 */
export function readSource(spec: string, flag: string, cwd: string, stdin: AsyncIterable<Buffer | string>, limit = INPUT_LIMIT): Promise<string> {
  return readText(spec, flag, cwd, stdin, limit);
}

/** Reads a `<path|->` flag value holding a JSON object; one line naming the file, line and column when it is not. */
export async function readJsonObject(spec: string, flag: string, cwd: string, stdin: AsyncIterable<Buffer | string>): Promise<Record<string, unknown>> {
  return parseJsonObject(await readSource(spec, flag, cwd, stdin), sourceLabel(spec, flag));
}

/** Parses JSON that must be an object (`where` names the flag, and the file it came from). */
export function parseJsonObject(text: string, where: string): Record<string, unknown> {
  const value = parseJsonText(text, where);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw usageError(`${where}: must be a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`);
  }
  return value as Record<string, unknown>;
}
