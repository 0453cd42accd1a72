import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commands, expectOneLine, isRoot, storeRoot } from '../helpers/config-store.js';
import { runInProcess } from '../helpers/context.js';

/**
 * A config store that cannot be read or written says which file and why, in one line, with exit 2
 * (a local setup to fix) or 9 (a full or read-only disk), for reads (check), writes (config set)
 * and login alike. In-process; another user's file and ten processes at once are in
 * test/e2e/config-store.test.ts.
 */
const root = storeRoot();

describe('a config store that cannot be used', () => {
  it.each(commands)('%s: the config file is a directory', async (_name, args, input) => {
    const dir = mkdtempSync(join(root(), 'isdir-'));
    mkdirSync(join(dir, 'config.json'));
    expectOneLine(await runInProcess(args, { configDir: dir, ...(input === undefined ? {} : { input }) }), `config file ${join(dir, 'config.json')} is a directory`);
  });

  it.each(commands)('%s: the config directory is a file', async (_name, args, input) => {
    const dir = join(mkdtempSync(join(root(), 'isfile-')), 'mailroom');
    writeFileSync(dir, 'not a directory');
    expectOneLine(await runInProcess(args, { configDir: dir, ...(input === undefined ? {} : { input }) }), `config directory ${dir} is not a directory`);
  });

  describe.runIf(isRoot)('on a filesystem of its own', () => {
    const mounts: string[] = [];
    const mount = (options: string) => {
      const at = mkdtempSync(join(root(), 'mnt-'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', at]);
      mounts.push(at);
      return at;
    };
    afterAll(() => {
      for (const at of mounts) execFileSync('umount', [at]);
    });

    it('read-only: config set and login name the file and the cause, not ENOENT (exit 9)', async () => {
      const dir = mount('ro,size=64k');
      for (const [, args, input] of commands.slice(1)) {
        expectOneLine(await runInProcess(args, { configDir: dir, ...(input === undefined ? {} : { input }) }), `cannot write the config file ${join(dir, 'config.json')}: read-only file system`, 9);
      }
    });

    it('full: config set names the file and the cause (exit 9), and the stored profiles are intact', async () => {
      const dir = mount('size=64k');
      expect((await runInProcess(['config', 'set', 'workspace', 'wrk_kept'], { configDir: dir })).code).toBe(0);
      const before = readFileSync(join(dir, 'config.json'), 'utf8');
      try {
        execFileSync('dd', ['if=/dev/zero', `of=${join(dir, 'filler')}`, 'bs=4k', 'count=64'], { stdio: 'ignore' });
      } catch {
        // dd stops when the disk is full: that is the point.
      }
      expectOneLine(await runInProcess(['config', 'set', 'base-url', 'http://127.0.0.1:9', '--profile', 'other'], { configDir: dir }), `cannot write the config file ${join(dir, 'config.json')}: no space left on device`, 9);
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
    });
  });
});
