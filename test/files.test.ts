import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { storageError } from '../src/errors.js';
import { fsReason, makeDirectory, type DirectoryOps } from '../src/files.js';
import { JournalLock } from '../src/output/lock.js';

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

describe('errors that name a file say why in words, never a bare errno code', () => {
  it.each([
    ['ENOSPC', 'cannot write /j/run.journal: no space left on device'],
    ['EDQUOT', 'cannot write /j/run.journal: disk quota exceeded'],
    ['EIO', 'cannot write /j/run.journal: input/output error'],
  ] as const)('storageError %s', (code, message) => {
    const e = storageError('/j/run.journal', errno(code));
    expect(e.message).toBe(message);
    expect(e.kind).toBe('storage');
  });

  it('a lock that cannot be created says why in words', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-lock-'));
    try {
      // The lock's directory is missing and the use does not create it.
      expect(() => JournalLock.acquire(join(dir, 'nope', 'deliveries.ndjson'), { subject: '--journal x', holder: 'another mailroom webhooks listen', createDir: false }))
        .toThrow('--journal x: cannot create its lock ' + join(dir, 'nope', 'deliveries.ndjson.lock') + ': no such directory');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
