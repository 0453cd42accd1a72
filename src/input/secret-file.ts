import { readFileSync } from 'node:fs';
import { usageError } from '../errors.js';

const read = new Map<string, string>();

/**
 * A secret from a file, or stdin for `-`: the way to pass a key or token without putting it in argv,
 * which other local users can read (ps) for the whole run. Surrounding whitespace (the newline an
 * editor or `echo` adds) is dropped.
 */
export function readSecretFile(path: string, flag: string): string {
  // Settings are resolved more than once in some commands; stdin can be read only once.
  const known = read.get(path);
  if (known !== undefined) return known;
  let text: string;
  try {
    text = readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : String(code ?? err);
    throw usageError(`${flag}: cannot read ${path === '-' ? 'stdin' : path}: ${why}`);
  }
  const secret = text.trim();
  if (secret === '') throw usageError(`${flag}: ${path === '-' ? 'stdin' : path} is empty`);
  if (/\s/.test(secret)) throw usageError(`${flag}: ${path === '-' ? 'stdin' : path} holds more than one word; expected the secret alone`);
  read.set(path, secret);
  return secret;
}
