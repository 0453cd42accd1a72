import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runCliTo, type ReaderResult } from '../helpers/cli.js';
import { ndjsonInput, sandboxEnv } from '../helpers/batch.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

// Every output that can pass the 64 KiB a pipe holds, read by a reader that waits (`| (sleep 2; wc -c)`)
// and one that leaves after a line (`| head -1`). Before the fix the waiting reader got 64 KiB of each.
const PIPE = 64 * 1024;
const EMAILS = 3000;
const KEYS = 200;

let sandbox: TestSandbox;
let dir: string;
let env: Record<string, string>;
let bigEmail: string;

beforeAll(async () => {
  // Keeps every email: the batch cases count what the sandbox caught, past the default retention.
  sandbox = await withSandbox({ config: { retain: 100_000 } });
  dir = mkdtempSync(join(tmpdir(), 'mailroom-pipes-'));
  env = { ...cliEnv(sandboxEnv(sandbox, join(dir, 'state'))), MAILROOM_WORKSPACE: sandbox.workspaceId };
  const call = client(sandbox);
  // Seeded over the API in batches of 50: 60 requests, not 3,000 CLI runs.
  for (let b = 0; b < EMAILS / 50; b++) {
    const emails = Array.from({ length: 50 }, (_, i) => ({ from: 'ops@example.com', to: `user${b * 50 + i}@example.com`, subject: `Hello ${b * 50 + i}`, html: `<p>Hello</p>` }));
    expect((await call('POST', '/v1/emails/batch', { emails })).status).toBe(200);
  }
  const big = await call('POST', '/v1/emails', { from: 'ops@example.com', to: 'big@example.com', subject: 'Big', html: `<p>${'x'.repeat(300_000)}</p>` });
  bigEmail = big.body.email.id;
  for (let k = 0; k < KEYS; k++) {
    const r = await call('POST', `/v1/workspaces/${sandbox.workspaceId}/api-keys`, { displayName: `key ${k} ${'n'.repeat(190)}`, role: 'API_USER' });
    expect(r.status).toBe(200);
  }
  ndjsonInput(join(dir, 'batch-a.ndjson'), EMAILS);
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * Commands whose output does not change the sandbox: the first three print more than a pipe holds;
 * `api` (a page of 100 keys), help and completion less, through the same exit. Each runs once into a
 * file (`fileRuns`, shared by both tests below: the same bytes every time), to keep the processes few.
 */
const readOnly = () => [
  ['sandbox', 'emails'],
  ['keys', 'list', '--all'],
  ['sandbox', 'email', bigEmail, '--html'],
  ['api', 'GET', `/v1/workspaces/${sandbox.workspaceId}/api-keys?limit=100`],
  ['completion', 'zsh'],
  ['--help'],
  ['help', 'exit-codes'],
];
let fileRuns: Promise<ReaderResult[]> | undefined;
const intoFiles = () => (fileRuns ??= Promise.all(readOnly().map((args) => runCliTo('file', args, { env }))));

// Each run sends its copy of the same 3,000 emails on purpose (--new-run): an input an earlier run sent is refused without it.
const batchArgs = (input: string) => ['batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--report', '-', '--new-run'];

/** A batch report's lines with the ids (random) blanked, sorted (they come in completion order). */
const reportShape = (r: ReaderResult) => r.stdout.toString().replace(/"trs_[A-Za-z0-9]+"/g, '"id"').split('\n').sort().join('\n');

describe('a reader that waits before reading gets every byte a file gets', () => {
  it('every read-only command: the same bytes and exit code through a slow pipe as into a file', async () => {
    const files = await intoFiles();
    const results = await Promise.all(readOnly().map(async (args, i) => ({ args, file: files[i]!, slow: await runCliTo('slow', args, { env }) })));
    for (const { args, file, slow } of results) {
      expect(file.code, `${args.join(' ')}: ${file.stderr}`).toBe(0);
      expect(slow.code, args.join(' ')).toBe(0);
      expect(slow.stdout.length, args.join(' ')).toBe(file.stdout.length);
      expect(slow.stdout.equals(file.stdout), args.join(' ')).toBe(true);
      expect(slow.stderr, args.join(' ')).toBe(file.stderr);
    }
    for (const { args, file } of results.slice(0, 3)) expect(file.stdout.length, args.join(' ')).toBeGreaterThan(PIPE);
  }, 120_000);

  it('batch --report -: all 3,000 report lines through a slow pipe, as into a file', async () => {
    copyFileSync(join(dir, 'batch-a.ndjson'), join(dir, 'batch-b.ndjson'));
    // Two runs of the same entries at once: with one state directory, one would be refused as the
    // other's repeat (docs/batch.md), --new-run or not; each has its own, as on two machines.
    const [file, slow] = await Promise.all([
      runCliTo('file', batchArgs(join(dir, 'batch-a.ndjson')), { env }),
      runCliTo('slow', batchArgs(join(dir, 'batch-b.ndjson')), { env: { ...env, MAILROOM_STATE_DIR: join(dir, 'state-slow') } }),
    ]);
    expect(file.code).toBe(0);
    expect(slow.code).toBe(0);
    expect(file.stdout.length).toBeGreaterThan(PIPE);
    expect(slow.stdout.toString().split('\n').filter(Boolean)).toHaveLength(EMAILS);
    expect(slow.stdout.length).toBe(file.stdout.length);
    expect(reportShape(slow)).toBe(reportShape(file));
  }, 120_000);
});

describe('a reader that leaves after the first line (| head -1)', () => {
  it('each big output ends quietly with its own exit code, the first line delivered', async () => {
    const files = await intoFiles();
    const results = await Promise.all(readOnly().map(async (args, i) => ({ args, file: files[i]!, head: await runCliTo('first-line', args, { env }) })));
    for (const { args, file, head } of results) {
      expect(head.code, `${args.join(' ')}: ${head.stderr}`).toBe(0);
      expect(head.stderr, args.join(' ')).not.toMatch(/EPIPE|ERR_STREAM|\n\s+at /);
      expect(head.stderr, args.join(' ')).toBe(file.stderr);
      expect(head.stdout.toString(), args.join(' ')).toBe(`${file.stdout.toString().split('\n')[0]}\n`);
    }
  }, 120_000);

  it('batch --report - | head -1: the batch still sends every email and keeps its journal; exit 0, no trace', async () => {
    const before = (await sandbox.emails()).length;
    copyFileSync(join(dir, 'batch-a.ndjson'), join(dir, 'batch-c.ndjson'));
    const journal = join(dir, 'c.journal');
    const head = await runCliTo('first-line', [...batchArgs(join(dir, 'batch-c.ndjson')), '--resume', journal], { env });
    expect(head.code, head.stderr).toBe(0);
    expect(head.stderr).not.toMatch(/EPIPE|ERR_STREAM|\n\s+at /);
    expect(head.stdout.toString()).toMatch(/^\{"index":0,"id":"trs_\w+","status":"SENT"\}\n$/);
    expect(head.stderr).toMatch(/Sent 3,000 of 3,000 emails in /);
    expect((await sandbox.emails()).length - before).toBe(EMAILS);
    // The journal says all of it went: resuming it sends nothing.
    const again = await runCliTo('file', ['batch', join(dir, 'batch-c.ndjson'), '--from', 'ops@example.com', '--subject', 'Hi', '--resume', journal, '--json'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout.toString())).toMatchObject({ total: EMAILS, failed: 0 });
    expect((await sandbox.emails()).length - before).toBe(EMAILS);
  }, 120_000);
});
