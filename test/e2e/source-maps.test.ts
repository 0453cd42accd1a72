import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv } from '../helpers/cli.js';

/**
 * The files of the current build: main.js and what it imports, transitively. A rebuild leaves older
 * hashed chunks in dist/chunks for CLIs still running (npm pack prunes them), so listing the
 * directory would check files no build of this source wrote.
 */
function bundleFiles(dist: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const js = readFileSync(join(dist, file), 'utf8');
    for (const m of js.matchAll(/["'](\.\.?\/[^"']+\.js)["']/g)) {
      const target = relative(dist, resolve(dirname(join(dist, file)), m[1]!));
      if (!target.startsWith('..') && existsSync(join(dist, target))) visit(target);
    }
  };
  visit('main.js');
  return [...seen];
}

// The package ships source maps only because --verbose uses them: its stack traces name src/ lines.
describe('source maps', () => {
  function sourceMapsEnabled(args: string[], extraEnv: Record<string, string> = {}): string {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-maps-'));
    try {
      const file = join(dir, 'enabled.txt');
      const r = spawnSync(process.execPath, ['--import', join(ROOT, 'test', 'fixtures', 'record-source-maps.mjs'), BIN, ...args], {
        env: cleanEnv(dir, { ...extraEnv, MAILROOM_TEST_SOURCE_MAPS_FILE: file }),
        encoding: 'utf8',
      });
      expect(r.status).toBe(0);
      return readFileSync(file, 'utf8');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('are enabled under --verbose, -v and MAILROOM_DEBUG=1, and not otherwise (start-up time)', () => {
    expect(sourceMapsEnabled(['--verbose', 'config', 'path'])).toBe('true');
    expect(sourceMapsEnabled(['-v', 'config', 'path'])).toBe('true');
    expect(sourceMapsEnabled(['config', 'path'], { MAILROOM_DEBUG: '1' })).toBe('true');
    expect(sourceMapsEnabled(['config', 'path'])).toBe('false');
  });

  it("map every bundle file back to mailroom's sources, without shipping their text", () => {
    const dist = join(ROOT, 'dist');
    const files = bundleFiles(dist);
    expect(files.length).toBeGreaterThan(1);
    for (const file of files) {
      const js = join(dist, file);
      expect(readFileSync(js, 'utf8')).toMatch(new RegExp(`//# sourceMappingURL=${file.split('/').pop()!.replace(/\./g, '\\.')}\\.map\\n$`));
      const map = JSON.parse(readFileSync(`${js}.map`, 'utf8')) as { sources: string[]; sourcesContent?: unknown };
      expect(map.sourcesContent).toBeUndefined();
      const ours = map.sources.map((source) => resolve(dirname(js), source)).filter((source) => source.startsWith(join(ROOT, 'src')));
      for (const source of ours) expect(existsSync(source), source).toBe(true);
      if (file === 'main.js') expect(ours).toContain(join(ROOT, 'src', 'main.ts'));
    }
  });
});
