import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/** What only the CLI uses: the library must never load these, eagerly or lazily. */
const CLI_ONLY = ['commander', 'chalk', 'cli-table3', 'cli-progress', '@inquirer', 'prompts', 'conf', 'fastify'];

describe('the library entry (import { Mailroom } from "mailroom-cli")', () => {
  it('reaches none of the CLI-only packages anywhere in its import graph, lazy imports included', async () => {
    const result = await build({
      entryPoints: [join(ROOT, 'src/library/index.ts')],
      bundle: true,
      write: false,
      metafile: true,
      format: 'esm',
      platform: 'node',
      logLevel: 'silent',
      external: ['react', 'react-dom', 'react-dom/*', '@react-email/*', 'esbuild'],
    });
    const packages = new Set(Object.keys(result.metafile.inputs).flatMap((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1] ?? []));
    for (const name of CLI_ONLY) expect([...packages].filter((p) => p === name || p.startsWith(`${name}/`))).toEqual([]);
    // What it does bundle: the HTTP transport and the schemas, loaded on first use.
    expect(packages).toContain('undici');
    expect(packages).toContain('zod');
    // Nor does it reach the CLI's own layer.
    expect(Object.keys(result.metafile.inputs).filter((input) => /src\/(commands|program|run|main|report)\b/.test(input))).toEqual([]);
  });

  it('importing the built entry loads no HTTP stack and none of the CLI program (npm run build first)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-lib-import-'));
    try {
      const entry = JSON.stringify(pathToFileURL(join(ROOT, 'dist/index.js')).href);
      // The list is taken before printing (writing to a piped stdout loads net), and without the
      // module recorder (its loader thread loads net too).
      const script = `const m = await import(${entry}); const builtins = process.moduleLoadList.filter((n) => n.startsWith('NativeModule ')); console.log(JSON.stringify({ exports: Object.keys(m).sort(), builtins }));`;
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH } });
      expect(r.stderr).toBe('');
      const { exports, builtins } = JSON.parse(r.stdout) as { exports: string[]; builtins: string[] };
      expect(exports).toEqual(expect.arrayContaining(['Mailroom', 'ApiError', 'ValidationError', 'verifySignature', 'createWebhookHandler']));
      // undici needs net, tls and http: none of them is loaded until the first request.
      for (const name of ['net', 'tls', 'http', 'https', 'child_process']) expect(builtins).not.toContain(`NativeModule ${name}`);

      const modules = join(dir, 'modules.txt');
      const recorded = spawnSync(process.execPath, ['--import', join(ROOT, 'test/fixtures/record-modules.mjs'), '--input-type=module', '-e', `await import(${entry});`], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, MAILROOM_TEST_MODULES_FILE: modules },
      });
      expect(recorded.status).toBe(0);
      const loaded = readFileSync(modules, 'utf8').trim().split('\n').filter((url) => url.includes('/dist/'));
      expect(loaded.some((url) => url.endsWith('/dist/index.js'))).toBe(true);
      expect(loaded.filter((url) => /\/dist\/(main|complete)\.js$/.test(url))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
