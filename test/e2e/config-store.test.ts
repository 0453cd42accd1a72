import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands, expectOneLine, isRoot, KEY, storeRoot } from '../helpers/config-store.js';
import { runCli } from '../helpers/cli.js';

/**
 * A config store that cannot be read or written says which file and why, in one line, with exit 2
 * (a local setup to fix) or 9 (a full or read-only disk), for reads (check), writes (config set)
 * and login alike; and ten
 * `config set`s at once keep all ten profiles. Here what needs processes: another user's file, ten
 * processes at once; the rest runs in-process in test/cli/config-store.test.ts.
 */
const root = storeRoot();

describe('a config store that cannot be used', () => {
  it.runIf(isRoot).each(commands)('%s: the config file cannot be read (another user\'s, 0600)', async (_name, args, input) => {
    const dir = mkdtempSync(join(root(), 'unreadable-'));
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { apiKey: KEY } } }), { mode: 0o600 });
    const result = await runCli(args, { configDir: dir, asUser: 65534, ...(input === undefined ? {} : { input }) });
    expectOneLine(result, `cannot read the config file ${join(dir, 'config.json')}: permission denied`);
  });
});

describe('parallel config set', () => {
  it('ten processes, ten profiles: all ten are kept', async () => {
    const dir = mkdtempSync(join(root(), 'parallel-'));
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => runCli(['config', 'set', 'workspace', `wrk_${i}`, '--profile', `p${i}`], { configDir: dir, timeoutMs: 60_000 })));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const stored = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: Record<string, { workspace: string }> };
    expect(Object.keys(stored.profiles).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `p${i}`).sort());
    for (let i = 0; i < 10; i++) expect(stored.profiles[`p${i}`]?.workspace).toBe(`wrk_${i}`);
  }, 90_000);
});
