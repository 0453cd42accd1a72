import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fsReason, makeDirectory, type DirectoryOps } from '../src/files.js';

const errno = (code: string) => Object.assign(new Error(code), { code });

describe('fsReason: one errno-to-words map', () => {
  it.each([
    ['ENOENT', 'read', 'no such file'],
    ['ENOENT', 'write', 'no such directory'],
    ['EROFS', 'write', 'read-only file system'],
    ['ENOSPC', 'write', 'no space left on device'],
    ['EACCES', 'read', 'permission denied'],
    ['EISDIR', 'read', 'is a directory'],
    ['ENOTDIR', 'write', 'a component of the path is not a directory'],
  ] as const)('%s (%s) → %s', (code, op, words) => {
    expect(fsReason(errno(code), op)).toBe(words);
  });
});

describe('makeDirectory', () => {
  it('reports a read-only file system as such, where a recursive mkdir says ENOENT', () => {
    // A read-only mount: every directory exists up to /ro, and mkdir under it fails with EROFS.
    const ops: DirectoryOps = {
      statSync: (p) => {
        if (p === '/' || p === '/ro') return { isDirectory: () => true };
        throw errno('ENOENT');
      },
      mkdirSync: () => {
        throw errno('EROFS');
      },
    };
    expect(() => makeDirectory('/ro/state/batches', 0o700, ops)).toThrow(expect.objectContaining({ code: 'EROFS' }));
  });

  it('creates missing levels, 0700, and refuses a file in the way', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-files-'));
    try {
      makeDirectory(join(dir, 'a', 'b'));
      expect(statSync(join(dir, 'a', 'b')).mode & 0o777).toBe(0o700);
      makeDirectory(join(dir, 'a', 'b'));
      writeFileSync(join(dir, 'f'), '');
      expect(() => makeDirectory(join(dir, 'f', 'x'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
