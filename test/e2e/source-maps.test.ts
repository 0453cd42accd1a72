import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { SourceMap, type SourceMapPayload } from 'node:module';
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

  it("name the file of each module, mailroom's and the bundled packages' (whose maps keep the first mapping of a line: install size)", () => {
    const dist = join(ROOT, 'dist');
    let modules = 0;
    let packages = 0;
    for (const file of bundleFiles(dist)) {
      const js = join(dist, file);
      const map = new SourceMap(JSON.parse(readFileSync(`${js}.map`, 'utf8')) as SourceMapPayload);
      const lines = readFileSync(js, 'utf8').split('\n');
      for (const [i, line] of lines.entries()) {
        // esbuild's line above each module: `// src/run.ts`, `// node_modules/undici/lib/core/util.js`.
        const module = /^\/\/ (?:\S*\/)?(src\/\S+\.ts|node_modules\/(?:@[^/\s]+\/)?[^/\s]+\/)/.exec(line)?.[1];
        if (!module) continue;
        // Its first line of code that maps anywhere (esbuild leaves a helper such as `var _a;` unmapped).
        let source: string | undefined;
        for (let j = i + 1; j < lines.length && source === undefined && !lines[j]!.startsWith('// '); j++) {
          const entry = map.findEntry(j, Math.max(0, lines[j]!.search(/\S/))) as { generatedLine?: number; originalSource?: string };
          if (entry.generatedLine === j) source = entry.originalSource;
        }
        // A package's own map may name its sources by URL: only that it maps is checked there.
        if (module.startsWith('src/')) expect(source, `${file}:${i + 1}`).toContain(module);
        else expect(source, `${file}:${i + 1} (${module})`).toMatch(/\S/);
        modules += 1;
        if (module.startsWith('node_modules/')) packages += 1;
      }
    }
    expect(packages).toBeGreaterThan(10);
    expect(modules - packages).toBeGreaterThan(10);
  });
});
