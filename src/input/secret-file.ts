import { closeSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import { usageError } from '../errors.js';
import { fsReason } from '../files.js';

/** Far above any key or token; a path like /dev/zero must not be read without end. */
const SECRET_FILE_LIMIT = 64 * 1024;

/** Stdin can be read only once; a file is read each time it is asked for, so it is never stale. */
let fromStdin: string | undefined;

/**
 * A secret from a file (relative to `cwd`, the command's directory), or stdin for `-`: the way to
 * pass a key or token without putting it in argv, which other local users can read (ps) for the
 * whole run. Surrounding whitespace (the newline an editor or `echo` adds) is dropped.
 */
export function readSecretFile(path: string, flag: string, cwd: string): string {
  if (path === '-' && fromStdin !== undefined) return fromStdin;
  const label = path === '-' ? 'stdin' : path;
  const secret = readSecretFileText(path, flag, cwd).trim();
  if (secret === '') throw usageError(`${flag}: ${label} is empty`);
  if (/\s/.test(secret)) throw usageError(`${flag}: ${label} holds more than one word; expected the secret alone`);
  if (path === '-') fromStdin = secret;
  return secret;
}

/** The whole text of a secret file (not stdin), read with the same cap and messages, for callers that parse it. */
export function readSecretFileText(path: string, flag: string, cwd: string): string {
  const label = path === '-' ? 'stdin' : path;
  if (path === '') throw usageError(`${flag}: the file name is empty`);
  try {
    return readCappedSync(path === '-' ? 0 : resolve(cwd, path), SECRET_FILE_LIMIT);
  } catch (err) {
    if (err === TOO_LARGE) throw usageError(`${flag}: ${label} is larger than 64 KiB; expected the secret alone`);
    throw usageError(`${flag}: cannot read ${label}: ${fsReason(err)}`);
  }
}

const TOO_LARGE = Symbol('too large');

function readCappedSync(file: string | number, limit: number): string {
  const fd = typeof file === 'number' ? file : openSync(file, 'r');
  try {
    const buf = Buffer.alloc(limit + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buf, length, buf.length - length, null);
      if (n === 0) break;
      length += n;
      if (length > limit) throw TOO_LARGE;
    }
    return buf.subarray(0, length).toString('utf8');
  } finally {
    if (typeof file !== 'number') closeSync(fd);
  }
}
