import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { docProjects, runInProject } from '../helpers/doc-projects.js';

/**
 * The vitest and jest examples of docs/sandbox-in-your-tests.md, run as a user runs them: each
 * in its own project whose node_modules holds this package as npm installs it (package.json, bin/
 * and the built dist/, copied: a link out of node_modules would make vitest compile the bundle as
 * the project's own source) and the test runner, nothing else. The files are
 * taken from the page itself, so the page cannot drift from what was run.
 */
const PAGE = 'docs/sandbox-in-your-tests.md';
const THIS = 'test/e2e/sandbox-library-examples.test.ts';

const { blocks, files, project } = docProjects(PAGE, THIS);
const jestCommand = blocks.find((b) => b.lang === 'sh')?.body.trim();
const run = (cwd: string, args: string[]) => runInProject(cwd, args, 100_000);

describe(`the examples of ${PAGE}`, () => {
  test('the page shows the app, both tests, the jest config and its command', () => {
    expect([...files.keys()].sort()).toEqual(['jest.config.js', 'src/mailer.js', 'src/webhooks.js', 'test/receipts.test.js', 'test/receipts.test.ts']);
    expect(jestCommand).toBe('node --experimental-vm-modules node_modules/jest/bin/jest.js');
  });

  test.concurrent('vitest: the example type-checks against the shipped .d.ts and passes', { timeout: 200_000 }, async () => {
    const dir = project('vitest-example', ['src/mailer.js', 'src/webhooks.js', 'test/receipts.test.ts'], ['vitest', 'typescript', '@types/node']);
    // As a TypeScript user's project checks it (their usual skipLibCheck), and the shipped
    // declarations on their own, fully (fast: they import nothing).
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', strict: true, noEmit: true, allowJs: true, skipLibCheck: true }, include: ['test', 'src'] }));
    const declarations = ['library.d.ts', 'public-types.d.ts'].map((f) => `node_modules/mailroom-cli/dist/types/sandbox/${f}`);
    writeFileSync(join(dir, 'tsconfig.types.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', strict: true, noEmit: true, types: [], skipDefaultLibCheck: true }, files: declarations }));
    const tsc = join(dir, 'node_modules/typescript/bin/tsc');
    // Both in one `tsc -b` process (the second reuses what the first parsed), beside the test run.
    const [check, tests] = await Promise.all([run(dir, [tsc, '-b', 'tsconfig.json', 'tsconfig.types.json']), run(dir, [join(dir, 'node_modules/vitest/vitest.mjs'), 'run'])]);
    expect(check, check.output).toMatchObject({ code: 0 });
    expect(tests.code, tests.output).toBe(0);
    expect(tests.output).toMatch(/Tests\s+3 passed \(3\)/);
  });

  test.concurrent('jest (ES modules): the example passes and jest finds no open handle', { timeout: 200_000 }, async () => {
    const dir = project('jest-example', ['src/mailer.js', 'src/webhooks.js', 'test/receipts.test.js', 'jest.config.js'], ['jest']);
    const [node, ...args] = jestCommand!.split(' ');
    expect(node).toBe('node');
    const result = await run(dir, [...args, '--detectOpenHandles']);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/Tests:\s+2 passed, 2 total/);
    expect(result.output).not.toMatch(/open handle|did not exit/i);
  });
});
