import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';
import { ROOT } from './cli.js';
import { codeBlocks, type Block } from './doc-examples.js';

export interface DocProjects {
  /** The page's blocks marked as tested by this test file. */
  blocks: Block[];
  /** The page's files by the path on their first line (`// src/mailer.js`). */
  files: Map<string, string>;
  /**
   * A project with the page's `paths`, a `package.json` of type module, this package as npm installs
   * it (package.json, bin/ and the built dist/, copied: a link out of node_modules would make a test
   * runner compile the bundle as the project's own source) and these packages linked in node_modules.
   */
  project(name: string, paths: string[], packages: string[]): string;
}

/** The code of a docs page's examples for the test file `testPath`, in projects under a temp directory removed after the file. */
export function docProjects(page: string, testPath: string): DocProjects {
  const blocks = codeBlocks(readFileSync(join(ROOT, page), 'utf8')).filter((b) => b.marker.kind === 'tested-by' && b.marker.path === testPath);
  const files = new Map(blocks.flatMap((b) => (/^\/\/ (\S+)\n/.exec(b.body) ? [[/^\/\/ (\S+)\n/.exec(b.body)![1]!, b.body] as const] : [])));
  const work = mkdtempSync(join(tmpdir(), 'mailroom-doc-projects-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const project = (name: string, paths: string[], packages: string[]): string => {
    const dir = join(work, name);
    for (const path of paths) {
      const text = files.get(path);
      if (text === undefined) throw new Error(`${page} has no block for ${path}`);
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
    const installed = join(dir, 'node_modules', 'mailroom-cli');
    for (const part of ['package.json', 'bin', 'dist']) cpSync(join(ROOT, part), join(installed, part), { recursive: true });
    for (const pkg of packages) {
      const link = join(dir, 'node_modules', pkg);
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules', pkg), link);
    }
    return dir;
  };
  return { blocks, files, project };
}

/**
 * `node ...args` in a project, as its user runs it: nothing of this test run's environment
 * (VITEST_*, NODE_OPTIONS) reaches it. A runner kept alive by a handle left open is killed at
 * `timeoutMs`, and fails its test.
 */
export function runInProject(cwd: string, args: string[], timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, CI: '1', NO_COLOR: '1' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
