import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { docProjects, runInProject } from '../helpers/doc-projects.js';

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

const { files, project } = docProjects(PAGE, THIS);
const run = (cwd: string, args: string[]) => runInProject(cwd, args, 150_000);

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
    // The point is the two files at the same time (two workers), not one after the other. On a busy
    // machine the second worker can start after the first file ended: that run proves nothing
    // either way, so the suite runs again (every run must pass), until one run shows the overlap.
    const runs: FileResult[][] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const result = await run(dir, [join(dir, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`]);
      expect(result.code, result.output).toBe(0);
      expect(result.output).toMatch(/Test Files\s+2 passed \(2\)/);
      expect(result.output).toMatch(/Tests\s+3 passed \(3\)/);
      const ran = (JSON.parse(readFileSync(report, 'utf8')) as { testResults: FileResult[] }).testResults;
      expect(ran).toHaveLength(2);
      runs.push(ran);
      const [a, b] = ran as [FileResult, FileResult];
      if (a.startTime < b.endTime && b.startTime < a.endTime) break;
    }
    const [a, b] = runs.at(-1) as [FileResult, FileResult];
    expect(a.startTime < b.endTime && b.startTime < a.endTime, JSON.stringify(runs)).toBe(true);
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
