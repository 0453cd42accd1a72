import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type RunResult } from '../helpers/cli.js';

/**
 * A config store that cannot be read or written says which file and why, in one line, with exit 2
 * (a local setup to fix) or 9 (a full or read-only disk), for reads (check), writes (config set)
 * and login alike; and ten
 * `config set`s at once keep all ten profiles.
 */
const isRoot = process.getuid?.() === 0;
let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'mailroom-store-'));
  chmodSync(root, 0o755);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const KEY = 'sk_live_storeStoreStoreStore0001';
const commands: [string, string[], string | undefined][] = [
  ['check', ['check'], undefined],
  ['config set', ['config', 'set', 'workspace', 'wrk_1'], undefined],
  ['login', ['login', '--api-key-stdin', '--base-url', 'http://127.0.0.1:9'], KEY],
];

function expectOneLine(result: RunResult, line: string, code = 2): void {
  expect(result.stderr).toBe(`mailroom: ${line}\n`);
  expect(result.code).toBe(code);
  expect(result.stdout).toBe('');
}

describe('a config store that cannot be used', () => {
  it.each(commands)('%s: the config file is a directory', async (_name, args, input) => {
    const dir = mkdtempSync(join(root, 'isdir-'));
    mkdirSync(join(dir, 'config.json'));
    expectOneLine(await runCli(args, { configDir: dir, ...(input === undefined ? {} : { input }) }), `config file ${join(dir, 'config.json')} is a directory`);
  });

  it.each(commands)('%s: the config directory is a file', async (_name, args, input) => {
    const dir = join(mkdtempSync(join(root, 'isfile-')), 'mailroom');
    writeFileSync(dir, 'not a directory');
    expectOneLine(await runCli(args, { configDir: dir, ...(input === undefined ? {} : { input }) }), `config directory ${dir} is not a directory`);
  });

  it.runIf(isRoot).each(commands)('%s: the config file cannot be read (another user\'s, 0600)', async (_name, args, input) => {
    const dir = mkdtempSync(join(root, 'unreadable-'));
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { apiKey: KEY } } }), { mode: 0o600 });
    const result = await runCli(args, { configDir: dir, asUser: 65534, ...(input === undefined ? {} : { input }) });
    expectOneLine(result, `cannot read the config file ${join(dir, 'config.json')}: permission denied`);
  });

  describe.runIf(isRoot)('on a filesystem of its own', () => {
    const mounts: string[] = [];
    const mount = (options: string) => {
      const at = mkdtempSync(join(root, 'mnt-'));
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
        expectOneLine(await runCli(args, { configDir: dir, ...(input === undefined ? {} : { input }) }), `cannot write the config file ${join(dir, 'config.json')}: read-only file system`, 9);
      }
    });

    it('full: config set names the file and the cause (exit 9), and the stored profiles are intact', async () => {
      const dir = mount('size=64k');
      expect((await runCli(['config', 'set', 'workspace', 'wrk_kept'], { configDir: dir })).code).toBe(0);
      const before = readFileSync(join(dir, 'config.json'), 'utf8');
      try {
        execFileSync('dd', ['if=/dev/zero', `of=${join(dir, 'filler')}`, 'bs=4k', 'count=64'], { stdio: 'ignore' });
      } catch {
        // dd stops when the disk is full: that is the point.
      }
      expectOneLine(await runCli(['config', 'set', 'base-url', 'http://127.0.0.1:9', '--profile', 'other'], { configDir: dir }), `cannot write the config file ${join(dir, 'config.json')}: no space left on device`, 9);
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
    });
  });
});

describe('parallel config set', () => {
  it('ten processes, ten profiles: all ten are kept', async () => {
    const dir = mkdtempSync(join(root, 'parallel-'));
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => runCli(['config', 'set', 'workspace', `wrk_${i}`, '--profile', `p${i}`], { configDir: dir, timeoutMs: 60_000 })));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const stored = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: Record<string, { workspace: string }> };
    expect(Object.keys(stored.profiles).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `p${i}`).sort());
    for (let i = 0; i < 10; i++) expect(stored.profiles[`p${i}`]?.workspace).toBe(`wrk_${i}`);
  }, 90_000);
});
