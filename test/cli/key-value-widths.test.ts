import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeContext, runInProcess } from '../helpers/context.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { printKeyValues, printTable } from '../../src/output/print.js';
import { underColumn, wrapText } from '../../src/output/wrap.js';

// Every key/value view on terminals of 40 and 50 columns: no line wider than the terminal (so the
// terminal never wraps a value back under the labels), each value whole, its next lines indented
// to its own column. In-process: the width is the io's, as a terminal reports it.
let sandbox: TestSandbox;
let dir: string;
let env: Record<string, string>;
const longUrl = 'http://127.0.0.1:9/mailroom/contact-events/for-the-crm/with/a/long/path';
const longName = 'deploy-bot for the production cluster in eu-west-1';
const longTo = 'ada.lovelace@analytical-engines.example.com';
const longSubject = 'A subject line long enough to wrap on a narrow terminal for sure';
let webhookId: string;
let emailId: string;

beforeAll(async () => {
  sandbox = await withSandbox();
  dir = mkdtempSync(join(tmpdir(), 'mailroom-kv-'));
  env = { MAILROOM_BASE_URL: sandbox.baseUrl, MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_WORKSPACE: sandbox.workspaceId, MAILROOM_CONFIG_DIR: dir, XDG_STATE_HOME: join(dir, 'state'), HOME: dir };
  const call = client(sandbox);
  webhookId = (await call('POST', '/v1/webhooks', { url: longUrl, events: ['CONTACT_CREATED', 'CONTACT_UPDATED', 'CONTACT_UNSUBSCRIBED'] })).body.webhook.id;
  emailId = (await call('POST', '/v1/emails', { from: 'ops@example.com', to: longTo, subject: longSubject, html: '<p>Hi</p>' })).body.email.id;
  writeFileSync(join(dir, 'one.ndjson'), `${JSON.stringify({ from: 'ops@example.com', to: longTo, subject: longSubject, html: '<p>x</p>' })}\n`);
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Checks `label  value` output laid out for `columns`: no line wider; the values start at one column
 * and their next lines start there too; each of `whole` is there unbroken once the lines are joined.
 */
function expectUnderColumn(stdout: string, columns: number, whole: string[]): void {
  const lines = stdout.trimEnd().split('\n').filter((l) => l !== '');
  for (const line of lines) expect(line.length, `${line}|`).toBeLessThanOrEqual(columns);
  const starts = lines.filter((l) => !l.startsWith(' ')).map((l) => /^\S(?:.*?\S)? {2,}(?=\S)/.exec(l)?.[0].length);
  expect(new Set(starts).size, stdout).toBe(1);
  const column = starts[0]!;
  for (const line of lines.filter((l) => l.startsWith(' '))) expect(line, `a line under the labels:\n${stdout}`).toMatch(new RegExp(`^ {${column}}\\S`));
  // Joined back: each value is one run of its pieces.
  const joined = lines.map((l) => l.slice(column)).join('').replace(/\s/g, '');
  for (const value of whole) expect(joined, stdout).toContain(value.replace(/\s/g, ''));
}

const VIEWS: Array<[name: string, args: () => string[], whole: () => string[]]> = [
  ['webhooks get', () => ['webhooks', 'get', webhookId], () => [webhookId, longUrl, 'CONTACT_CREATED, CONTACT_UPDATED, CONTACT_UNSUBSCRIBED']],
  ['webhooks create (the token shown once)', () => ['webhooks', 'create', '--url', `${longUrl}/2`, '--event', 'CONTACT_CREATED,CONTACT_UPDATED,CONTACT_UNSUBSCRIBED,CONTACT_DELETED'], () => [`${longUrl}/2`]],
  ['keys create (the secret shown once)', () => ['keys', 'create', '--name', longName], () => [longName]],
  ['send', () => ['send', '--from', 'ops@example.com', '--to', longTo, '--subject', longSubject, '--html', '<p>x</p>'], () => [longTo, longSubject]],
  ['whoami', () => ['whoami'], () => ['environment (MAILROOM_WORKSPACE)', sandbox.baseUrl]],
  ['check', () => ['check'], () => ['environment (MAILROOM_API_KEY)']],
  ['sandbox email', () => ['sandbox', 'email', emailId], () => [longTo, longSubject]],
];

describe.each([40, 50])('key/value views on a terminal of %i columns', (columns) => {
  it.each(VIEWS)('%s: values wrap under their column, labels untouched', async (_name, args, whole) => {
    const r = await runInProcess([...args(), '--no-color'], { env, cwd: dir, tty: true, columns });
    expect(r.code, r.stderr).toBe(0);
    // sandbox email prints the text body after a blank line: only its headers are key/value lines.
    expectUnderColumn(args()[1] === 'email' ? r.stdout.split('\n\n')[0]! : r.stdout, columns, whole());
  });

  it('batch journals show: the run, key/value lines', async () => {
    const sent = await runInProcess(['batch', 'one.ndjson', '--new-run', '--json'], { env, cwd: dir });
    expect(sent.code, sent.stderr).toBe(0);
    const { journal } = JSON.parse(sent.stdout) as { journal: string };
    const r = await runInProcess(['batch', 'journals', 'show', journal, '--no-color'], { env, cwd: dir, tty: true, columns });
    expect(r.code, r.stderr).toBe(0);
    expectUnderColumn(r.stdout.split('\n\n')[0]!, columns, [journal]);
  });

  it('doctor: details and fixes wrap under their own column', async () => {
    const r = await runInProcess(['doctor', '--no-color'], { env, cwd: dir, tty: true, columns });
    const lines = r.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line.length, `${line}|`).toBeLessThanOrEqual(columns);
    const width = Math.max(...lines.filter((l) => /^(ok|warn|fail) /.test(l)).map((l) => /^\S+ +(\S.*?) {2}/.exec(l)![1]!.length));
    for (const line of lines.filter((l) => !/^(ok|warn|fail) /.test(l))) expect(line, r.stdout).toMatch(new RegExp(`^( {${width + 8}}| {6}fix: | {11})\\S`));
    expect(r.stdout.replace(/\s/g, '')).toContain(join(dir, 'state', 'mailroom', 'batches').replace(/\s/g, ''));
  });
});

describe('a table on a terminal of 40 columns', () => {
  it('a table too wide for the terminal, as blocks: long values wrap under their column, whole', async () => {
    const columns = 40;
    const { ctx, stdout } = fakeContext({ tty: { stdout: true }, columns });
    const rows = [{ id: 'em_0123456789abcdefghij', to: longTo, subject: longSubject }];
    await printTable(ctx, rows, [
      { header: 'ID', value: (r) => r.id },
      { header: 'TO', value: (r) => r.to, kind: 'text' },
      { header: 'SUBJECT', value: (r) => r.subject, kind: 'text' },
    ]);
    expectUnderColumn(stdout(), columns, [rows[0]!.id, longTo, longSubject]);
  });
});

describe('printKeyValues off a terminal and on a wide one', () => {
  it('piped (no width): one line per value, however long', async () => {
    const { ctx, stdout } = fakeContext();
    await printKeyValues(ctx, [['url', `${longUrl}${longUrl}`], ['name', longName]]);
    expect(stdout()).toBe(`url   ${longUrl}${longUrl}\nname  ${longName}\n`);
  });

  it('wrapText: at spaces when it can, a longer word cut at the line end; underColumn indents what follows', () => {
    expect(wrapText('one two three four', 9)).toEqual(['one two', 'three', 'four']);
    expect(wrapText('abcdefghijklmnop x', 6)).toEqual(['abcdef', 'ghijkl', 'mnop x']);
    expect(underColumn('one two three four', 4, 16)).toBe('one two\n    three four');
    expect(underColumn('short', 4, 16)).toBe('short');
    // Too little room to help: left whole, for the terminal to wrap.
    expect(underColumn('one two three four', 4, 13)).toBe('one two three four');
  });
});
