import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Why a file operation failed, in words: the one errno-to-words map every message that names a
 * file goes through. `write` words ENOENT as a missing directory, which is what it means then.
 */
export function fsReason(err: unknown, op: 'read' | 'write' = 'read'): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return op === 'write' ? 'no such directory' : 'no such file';
    case 'EACCES':
      return 'permission denied';
    case 'EPERM':
      return 'operation not permitted';
    case 'EISDIR':
      return 'is a directory';
    case 'ENOTDIR':
      return 'a component of the path is not a directory';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on device';
    case 'EDQUOT':
      return 'disk quota exceeded';
    case 'EEXIST':
      return 'already exists';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    case 'ENAMETOOLONG':
      return 'file name too long';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many open files';
    case 'EFBIG':
      return 'file too large';
    case 'EIO':
      return 'input/output error';
    case 'EBUSY':
    case 'ETXTBSY':
      return 'busy';
    case 'ENXIO':
      return 'no such device';
    default:
      return code ?? (err instanceof Error ? err.message : String(err));
  }
}

export interface DirectoryOps {
  mkdirSync: (path: string, options: { mode?: number }) => unknown;
  statSync: (path: string) => { isDirectory(): boolean };
}

/**
 * `mkdir -p`, one level at a time: Node's recursive mkdir reports ENOENT for a directory it cannot
 * create on a read-only file system, so its error would name the wrong cause.
 */
export function makeDirectory(path: string, mode = 0o700, ops: DirectoryOps = { mkdirSync, statSync }): void {
  let exists = false;
  try {
    exists = true;
    if (ops.statSync(path).isDirectory()) return;
  } catch (err) {
    exists = false;
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (exists) throw Object.assign(new Error(`not a directory: ${path}`), { code: 'ENOTDIR' });
  const parent = dirname(path);
  if (parent !== path) makeDirectory(parent, mode, ops);
  try {
    ops.mkdirSync(path, { mode });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}
