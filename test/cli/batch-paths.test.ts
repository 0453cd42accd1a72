import { linkSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
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
  symlinkSync(input, join(dir, 'link.ndjson'));
  linkSync(input, join(dir, 'hard.ndjson'));
});

const batch = (args: string[], opts: { shell?: string } = {}) => runInProcess(['batch', ...args, '--from', 'ops@example.com', '--subject', 'Hi'], { env, cwd: dir, ...opts });

describe('mailroom batch: output paths are checked before anything is opened for writing', () => {
  const refusals: Array<[string, string[], RegExp]> = [
    ['--failed is the input', ['in.ndjson', '--failed', 'in.ndjson'], /--failed .*is the input/],
    ['--report is the input spelled ./', ['in.ndjson', '--report', './in.ndjson'], /--report .*is the input/],
    ['--report is a symlink to the input', ['in.ndjson', '--report', 'link.ndjson'], /--report .*is the input/],
    ['--failed is a hard link to the input', ['in.ndjson', '--failed', 'hard.ndjson'], /--failed .*is the input/],
    ['--resume is the input', ['in.ndjson', '--resume', 'in.ndjson'], /--resume .*is the input/],
    ['--report and --failed are one file', ['in.ndjson', '--report', 'out.ndjson', '--failed', './state/../out.ndjson'], /--failed .*is the same file as --report/],
    ['--report is the journal', ['in.ndjson', '--resume', 'run.journal', '--report', 'run.journal'], /--report .*is the same file as --resume/],
    ['--resume is stdout', ['in.ndjson', '--resume', '-'], /--resume/],
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

  it('the journal given to --resume is left as it was when --report names it', async () => {
    writeFileSync(join(dir, 'keep.journal'), '');
    const r = await batch(['in.ndjson', '--resume', 'keep.journal', '--report', './keep.journal']);
    expect(r.code).toBe(2);
    expect(statSync(join(dir, 'keep.journal')).size).toBe(0);
  });

  it('--report - writes the report on stdout and nothing else there; the JSON summary goes to stderr', async () => {
    const r = await batch(['in.ndjson', '--report', '-', '--json']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(120);
    expect(lines.every((l) => typeof l.index === 'number' && typeof l.id === 'string')).toBe(true);
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!)).toMatchObject({ total: 120, sent: 120, report: '-' });
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(() => statSync(join(dir, '-'))).toThrow();
  });
});

describe('--report - / --failed - with --json when entries fail (exit 7): stdout is that file and nothing else', () => {
  it.each([['--report'], ['--failed']])('%s -', async (flag) => {
    const mixed = join(dir, 'mixed.ndjson');
    writeFileSync(join(dir, 'body.html'), '<p>Hi</p>');
    writeFileSync(mixed, [{ to: 'a@example.com' }, { to: 'not-an-address' }, { to: 'c@example.com' }].map((e) => JSON.stringify(e)).join('\n'));
    const r = await runInProcess(['batch', 'mixed.ndjson', '--new-run', '--from', 'ops@example.com', '--subject', 'Hi', '--html-file', 'body.html', flag, '-', '--json'], { env, cwd: dir });
    expect(r.code).toBe(7);
    const lines = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    if (flag === '--report') {
      expect(lines).toHaveLength(3);
      expect(lines.every((l) => typeof l.index === 'number')).toBe(true);
    } else {
      expect(lines).toEqual([{ to: 'not-an-address' }]);
    }
    expect(r.stderr).toContain('mailroom: 1 of 3 emails failed');
  });
});

describe('--report - / --failed - with --json when the run fails before it starts: stdout stays empty', () => {
  // A script reading the report from stdout (`| jq 'select(.status == "FAILED")'`) must never get
  // an {"error"} document mixed into it: the error is on stderr and in the exit code.
  it.each([
    ['--report', 'a missing input', ['missing.ndjson'], {}, 2],
    ['--failed', 'a missing input', ['missing.ndjson'], {}, 2],
    ['--report', 'no API key', ['in.ndjson'], { MAILROOM_API_KEY: '' }, 3],
    ['--failed', 'a bad --send-at', ['in.ndjson', '--send-at', 'someday'], {}, 2],
    ['--report', 'a flag commander refuses', ['in.ndjson', '--concurrency', 'abc'], {}, 2],
    ['--failed', 'an unknown --json field', ['in.ndjson', '--json=nope'], {}, 2],
  ] as Array<[string, string, string[], Record<string, string>, number]>)('%s - and %s', async (flag, _why, args, extraEnv, code) => {
    const r = await runInProcess(['batch', ...args, '--from', 'ops@example.com', '--subject', 'Hi', flag, '-', '--json'], { env: { ...env, ...extraEnv }, cwd: dir });
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^mailroom: /);
    expect(r.code).toBe(code);
    expect(await sandbox.emails()).toHaveLength(0);
  });
});

describe('--jq with --report - / --failed -: refused, not ignored', () => {
  // stdout is that file: there is no JSON document for the expression, and a summary left
  // unfiltered on stderr would hide that the expression never ran.
  it.each([['--report'], ['--failed']])('%s - --jq .sent: exit 2 before anything is sent, stdout empty', async (flag) => {
    const r = await batch(['in.ndjson', flag, '-', '--jq', '.sent']);
    expect(r.stderr).toBe(`mailroom: --jq: with ${flag} - stdout carries that file, not a JSON document to filter; pipe it to jq instead\n`);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(2);
    expect(await sandbox.emails()).toHaveLength(0);
  });
});

describe('siblings: other commands that write a path', () => {
  it('sandbox --data that is its --config file: exit 2, the config untouched', async () => {
    const config = join(dir, 'sandbox.json');
    const text = JSON.stringify({ verifiedDomains: ['example.com'] });
    writeFileSync(config, text);
    const r = await runInProcess(['sandbox', '--port', '0', '--config', config, '--data', join(dir, '.', 'sandbox.json')], { cwd: dir });
    expect(r.stderr).toMatch(/^mailroom: --data .*is the input given to --config/m);
    expect(r.code).toBe(2);
    expect(readFileSync(config, 'utf8')).toBe(text);
  });

  // An unset shell variable (`--data "$STATE"`): an empty name is refused in words, never taken as
  // "no file" (the sandbox ran and kept nothing) nor as the current directory.
  it.each([
    ['sandbox --data', ['sandbox', '--port', '0', '--data', ''], '--data'],
    ['webhooks listen --journal', ['webhooks', 'listen', '--port', '0', '--token', 'wht_emptypathtest1234', '--journal', ''], '--journal'],
    ['batch --report', ['batch', 'in.ndjson', '--from', 'ops@example.com', '--subject', 'Hi', '--report', ''], '--report'],
    ['batch --failed', ['batch', 'in.ndjson', '--from', 'ops@example.com', '--subject', 'Hi', '--failed', ''], '--failed'],
  ])('%s \'\': exit 2, one line naming the option, nothing sent', async (_name, args, flag) => {
    const r = await runInProcess(args, { env, cwd: dir });
    expect(r.stderr).toBe(`mailroom: ${flag}: the file name is empty\n`);
    expect(r.code).toBe(2);
    expect(await sandbox.emails()).toHaveLength(0);
  });
});
