import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { tempConfigDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/context.js';
import { shellWords } from '../helpers/shell-words.js';

let sandbox: TestSandbox;
let dir: string;
beforeAll(async () => {
  sandbox = await withSandbox();
  dir = tempConfigDir();
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ MAILROOM_BASE_URL: sandbox.baseUrl, MAILROOM_API_KEY: sandbox.apiKey });

describe('mailroom api', () => {
  it('GETs a /v1 path and prints the body as JSON', async () => {
    const r = await runInProcess(['api', 'GET', '/v1/api-keys/check'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ status: 'SUCCEED', displayName: 'Sandbox key', role: 'API_USER' });
  });

  it('POSTs inline JSON, @file and stdin bodies; paths work with or without /v1', async () => {
    const inline = await runInProcess(['api', 'post', 'webhooks', '--data', '{"url":"http://127.0.0.1:9/a","events":["CONTACT_CREATED"]}'], { env: env() });
    expect(inline.code).toBe(0);
    const created = JSON.parse(inline.stdout).webhook;
    expect(created).toMatchObject({ url: 'http://127.0.0.1:9/a', events: ['CONTACT_CREATED'] });
    expect(created.id).toMatch(/^wh_/);

    const file = join(dir, 'hook.json');
    writeFileSync(file, JSON.stringify({ url: 'http://127.0.0.1:9/b', events: ['CONTACT_DELETED'] }));
    const fromFile = await runInProcess(['api', 'POST', '/v1/webhooks', '--data', `@${file}`], { env: env() });
    expect(JSON.parse(fromFile.stdout).webhook.url).toBe('http://127.0.0.1:9/b');

    const fromStdin = await runInProcess(['api', 'POST', '/v1/webhooks', '-d', '-'], { env: env(), input: '{"url":"http://127.0.0.1:9/c","events":["CONTACT_UPDATED"]}' });
    expect(fromStdin.code).toBe(0);

    const list = await client(sandbox)('GET', '/v1/webhooks');
    expect(list.body.webhooks.items.map((w: { url: string }) => w.url).sort()).toEqual(['http://127.0.0.1:9/a', 'http://127.0.0.1:9/b', 'http://127.0.0.1:9/c']);

    const del = await runInProcess(['api', 'DELETE', `/v1/webhooks/${created.id}`], { env: env() });
    expect(del.code).toBe(0);
    expect(JSON.parse(del.stdout)).toMatchObject({ isDeleted: true, webhook: { id: created.id } });
  });

  it('shows a webhook token in the answer that creates it, and masks it everywhere else', async () => {
    const token = 'wht_apitestapitestapitest7777';
    const created = await runInProcess(['api', 'POST', '/v1/webhooks', '--data', JSON.stringify({ url: 'http://127.0.0.1:9/t', events: ['CONTACT_CREATED'], token })], { env: env() });
    expect(JSON.parse(created.stdout).webhook.token).toBe(token);
    const id = JSON.parse(created.stdout).webhook.id;
    const got = await runInProcess(['api', 'GET', `/v1/webhooks/${id}`], { env: env() });
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout).webhook.token).toBe('wht_…7777');
    expect(got.stdout).not.toContain(token);
    const keys = await runInProcess(['api', 'GET', `/v1/workspaces/${sandbox.workspaceId}/api-keys`], { env: env() });
    expect(keys.stdout).not.toContain(sandbox.apiKey);
    expect(JSON.parse(keys.stdout).apiKeys.items[0].secretKey).toBe(`sk_live_…${sandbox.apiKey.slice(-4)}`);
  });

  it('maps API errors to exit codes with the message and request id on stderr', async () => {
    const missing = await runInProcess(['api', 'GET', '/v1/webhooks/wh_doesnotexist'], { env: env() });
    expect(missing.code).toBe(4);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/^mailroom: API 404 Not Found/);
    expect(missing.stderr).toMatch(/request id: \S+/);

    const unverified = await runInProcess(['api', 'POST', '/v1/emails', '--data', JSON.stringify({ from: 'me@unverified.test', to: 'a@example.com', subject: 'x', html: '<p>x</p>' })], { env: env() });
    expect(unverified.code).toBe(4);
    expect(unverified.stderr).toMatch(/^ {2}allowed domains: .*example\.com/m);
    expect(unverified.stderr).toMatch(/^ {2}docs: https?:\/\//m);

    const noAuth = await runInProcess(['api', 'GET', '/v1/webhooks'], { env: { ...env(), MAILROOM_API_KEY: 'sk_live_wrongwrongwrongwrong' } });
    expect(noAuth.code).toBe(3);
  });

  it.each([
    [['api', 'PUT', '/v1/webhooks'], 'mailroom: method "PUT": expected one of GET, POST, DELETE'],
    [['api', 'GET', '/v1/webhooks', '--data', '{}'], 'mailroom: --data: a GET request has no body'],
    [['api', 'POST', '/v1/webhooks', '--data', '{nope'], /^mailroom: --data: not valid JSON at line 1, column 2: expected a property name in double quotes, found "n"$/],
    [['api', 'POST', '/v1/webhooks', '--data', '@/nonexistent/file.json'], 'mailroom: --data: cannot read /nonexistent/file.json: no such file'],
    [['api', 'GET', '/v2/things'], 'mailroom: path "/v2/things": this CLI speaks /v1 only'],
  ])('%j → exit 2, nothing sent', async (args, line) => {
    // Port 9: any request would fail with exit 6, so exit 2 proves nothing was sent.
    const r = await runInProcess(args as string[], { env: { MAILROOM_BASE_URL: 'http://127.0.0.1:9', MAILROOM_API_KEY: 'sk_live_whateverwhatever' } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const first = r.stderr.split('\n')[0] as string;
    if (typeof line === 'string') expect(first).toBe(line);
    else expect(first).toMatch(line);
  });
});

describe('global --sandbox', () => {
  it('runs the README quick start as written: send against a throw-away in-process sandbox', async () => {
    const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
    const line = /^npm ci && node bin\/mailroom\.js (send --sandbox .*)$/m.exec(readme)?.[1];
    expect(line, 'the README quick start: npm ci && node bin/mailroom.js send --sandbox ...').toBeDefined();
    const args = shellWords(line!)!;
    expect(args).toEqual(['send', '--sandbox', '--from', 'you@example.com', '--to', 'friend@example.com', '--subject', 'Hello', '--html', '<p>Hi!</p>']);
    const r = await runInProcess(args);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'SENT', to: 'friend@example.com', from: 'you@example.com', subject: 'Hello', type: 'raw' });
  });

});
