import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { batchWorld, ndjsonInput } from '../helpers/batch.js';

let sandbox: TestSandbox;
let dir: string;
let env: Record<string, string>;
let input: string;
let inputText: string;

batchWorld('mailroom-batch-paths-', (world) => {
  ({ sandbox, dir, env } = world);
  input = join(dir, 'in.ndjson');
  ndjsonInput(input, 120);
  inputText = readFileSync(input, 'utf8');
});

const batch = (args: string[], opts: { shell?: string } = {}) => runCli(['batch', ...args, '--from', 'ops@example.com', '--subject', 'Hi'], { env, cwd: dir, ...opts });

// /dev/stdout is the process's own fd 1, which only a real process has; every other path case
// runs in-process in test/cli/batch-paths.test.ts.
describe('mailroom batch: output paths are checked before anything is opened for writing', () => {
  const refusals: Array<[string, string[], RegExp]> = [
    ['--report and --failed both stdout', ['in.ndjson', '--report', '-', '--failed', '/dev/stdout'], /--failed .*is the same file as --report|both write to stdout/],
  ];
  for (const [name, args, message] of refusals) {
    it(`${name}: exit 2, one line, nothing sent, the input untouched`, async () => {
      const r = await batch(args);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')[0]).toMatch(/^mailroom: /);
      expect(r.code).toBe(2);
      expect(readFileSync(input, 'utf8')).toBe(inputText);
      expect(await sandbox.emails()).toHaveLength(0);
    });
  }

  it('--report /dev/stdout is stdout too: the report lines are not interleaved with a JSON summary', async () => {
    const r = await batch(['in.ndjson', '--report', '/dev/stdout']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(120);
    expect(lines.every((l) => typeof l.index === 'number' && !('total' in l))).toBe(true);
    expect(r.stderr).toMatch(/Sent 120 of 120/);
  });
});

describe('siblings: other commands that write a path', () => {
  it('webhooks listen --journal /dev/stdout (where deliveries are printed): exit 2 before listening', async () => {
    const r = await runCli(['webhooks', 'listen', '--port', '0', '--token', 'wht_test', '--journal', '/dev/stdout'], { cwd: dir, timeoutMs: 10_000 });
    expect(r.stderr).toMatch(/^mailroom: --journal .*stdout/m);
    expect(r.code).toBe(2);
  });
});
