import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { codeBlocks } from '../helpers/doc-examples.js';

/**
 * The vitest and jest suites of docs/testing-with-the-sandbox.md, run as a user runs them, in two
 * workers against one sandbox: each in its own project whose node_modules holds this package as
 * npm installs it (package.json, bin/ and the built dist/, copied) and the test runner. The files
 * come from the page itself. The two test files send the same email to the same address under the
 * same idempotency key; each passes only if its workspace holds exactly its own email, and the
 * vitest run must show the two files running at the same time.
 */
const PAGE = 'docs/testing-with-the-sandbox.md';
const THIS = 'test/e2e/parallel-workers-examples.test.ts';

const blocks = codeBlocks(readFileSync(join(ROOT, PAGE), 'utf8')).filter((b) => b.marker.kind === 'tested-by' && b.marker.path === THIS);
const files = new Map(blocks.flatMap((b) => (/^\/\/ (\S+)\n/.exec(b.body) ? [[/^\/\/ (\S+)\n/.exec(b.body)![1]!, b.body] as const] : [])));

const work = mkdtempSync(join(tmpdir(), 'mailroom-parallel-examples-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function project(name: string, paths: string[], packages: string[]): string {
  const dir = join(work, name);
  for (const path of paths) {
    const text = files.get(path);
    if (text === undefined) throw new Error(`${PAGE} has no block for ${path}`);
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
}

function run(cwd: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, CI: '1', NO_COLOR: '1' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

interface FileResult {
  name: string;
  startTime: number;
  endTime: number;
}

describe(`the suites of ${PAGE}`, () => {
  test('the page shows the app, the vitest and the jest suites', () => {
    expect([...files.keys()].sort()).toEqual([
      'jest.config.js',
      'src/mailer.js',
      'test/global-setup.js',
      'test/global-setup.ts',
      'test/global-teardown.js',
      'test/sign-in-twice.test.js',
      'test/sign-in-twice.test.ts',
      'test/sign-in.test.js',
      'test/sign-in.test.ts',
      'vitest.config.ts',
    ]);
  });

  test.concurrent('vitest: two files in two workers at once against one sandbox, each seeing only its own email', { timeout: 200_000 }, async () => {
    const dir = project('vitest-parallel', ['src/mailer.js', 'vitest.config.ts', 'test/global-setup.ts', 'test/sign-in.test.ts', 'test/sign-in-twice.test.ts'], ['vitest']);
    const report = join(dir, 'report.json');
    const result = await run(dir, [join(dir, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`]);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/Test Files\s+2 passed \(2\)/);
    expect(result.output).toMatch(/Tests\s+3 passed \(3\)/);
    // The files ran at the same time (two workers), not one after the other.
    const ran = (JSON.parse(readFileSync(report, 'utf8')) as { testResults: FileResult[] }).testResults;
    expect(ran).toHaveLength(2);
    const [a, b] = ran as [FileResult, FileResult];
    expect(a.startTime < b.endTime && b.startTime < a.endTime, JSON.stringify(ran)).toBe(true);
  });

  test.concurrent('jest (ES modules): the same suites in two workers pass, and jest finds no open handle', { timeout: 200_000 }, async () => {
    const dir = project(
      'jest-parallel',
      ['src/mailer.js', 'jest.config.js', 'test/global-setup.js', 'test/global-teardown.js', 'test/sign-in.test.js', 'test/sign-in-twice.test.js'],
      ['jest'],
    );
    const result = await run(dir, ['--experimental-vm-modules', 'node_modules/jest/bin/jest.js', '--detectOpenHandles']);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/Tests:\s+2 passed, 2 total/);
    expect(result.output).not.toMatch(/open handle|did not exit/i);
  });
});
