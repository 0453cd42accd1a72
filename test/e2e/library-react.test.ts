import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';

/**
 * The built library renders React as a user's Node runs it. Not in the unit project: there the
 * renderer's bundle goes through vitest's module runner and one render takes ~20 s.
 */
const PROGRAM = `
import { createElement } from 'react';
import { Mailroom } from ${JSON.stringify(join(ROOT, 'dist', 'index.js'))};
const mailroom = new Mailroom({ apiKey: process.env.KEY, baseUrl: process.env.BASE_URL, env: {} });
await mailroom.emails.send({ from: 'ops@example.com', to: 'ada@example.com', subject: 'Hello', react: createElement('p', null, 'From React') });
await mailroom.emails.send({ from: 'ops@example.com', to: 'ada@example.com', subject: 'File', reactFile: ${JSON.stringify(join(ROOT, 'test/fixtures/react/Welcome.tsx'))}, props: { name: 'Ada' } });
await mailroom.close();
`;

describe('Mailroom (built) with React', () => {
  let sandbox: TestSandbox;
  beforeAll(async () => {
    sandbox = await withSandbox();
  });
  afterAll(() => sandbox.close());

  it('renders a React element and a component file locally, then sends the HTML', async () => {
    // Run from the checkout so that `react` resolves as in a user's project that has it installed.
    const run = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', PROGRAM], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, KEY: sandbox.apiKey, BASE_URL: sandbox.baseUrl },
    });
    expect(run.stderr).toBe('');
    const [fromElement, fromFile] = await sandbox.emails();
    expect(fromElement!.html).toContain('From React');
    expect(fromFile!.html).toContain('Ada');
    expect(fromFile!.text).toMatch(/welcome, ada!/i);
  });
});
