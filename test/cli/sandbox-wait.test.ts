import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: Record<string, string>;
beforeAll(async () => {
  sb = await withSandbox();
  env = { MAILROOM_BASE_URL: sb.baseUrl };
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

async function send(to: string, subject: string): Promise<string> {
  const res = await fetch(`${sb.baseUrl}/v1/emails`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sb.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ from: 'shop@example.com', to, subject, html: '<p>Your code is 123456</p>' }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { email: { id: string } }).email.id;
}

describe('mailroom sandbox wait', () => {
  test('prints the email once it is caught and exits 0; --json prints the list of emails', async () => {
    const waiting = runInProcess(['sandbox', 'wait', '--to', 'ada@customer.test', '--subject', 'code', '--timeout', '20s', '--json'], { env });
    await new Promise((r) => setTimeout(r, 50));
    await send('bob@customer.test', 'Your code');
    const id = await send('ada@customer.test', 'Your code');
    const r = await waiting;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const { items, hasMore } = JSON.parse(r.stdout) as { items: { id: string; to: string; text: string }[]; hasMore: boolean };
    expect(hasMore).toBe(false);
    expect(items.map((e) => [e.id, e.to, e.text])).toEqual([[id, 'ada@customer.test', 'Your code is 123456']]);
  });

  test('an email caught before counts; a table on a terminal; --count waits for that many', async () => {
    const first = await send('ada@customer.test', 'one');
    const second = await send('ada@customer.test', 'two');
    const r = await runInProcess(['sandbox', 'wait', '--to', 'ADA@customer.test', '--count', '2', '--no-color'], { env, tty: 'stdout', columns: 120 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ID +STATUS +TO +SUBJECT +CREATED\n/);
    expect(r.stdout).toContain(first);
    expect(r.stdout).toContain(second);
  });

  test('at --timeout: one line on stderr, exit 11, nothing on stdout; --json also prints the error object', async () => {
    await send('ada@customer.test', 'Welcome');
    const r = await runInProcess(['sandbox', 'wait', '--to', 'bob@customer.test', '--timeout', '0.2s'], { env });
    expect(r.code).toBe(11);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('mailroom: no email to bob@customer.test was caught within 200 ms (0 matching caught)\n  see what was caught: mailroom sandbox emails\n');

    const j = await runInProcess(['sandbox', 'wait', '--subject', 'welcome', '--count', '2', '--timeout', '100', '--json'], { env });
    expect(j.code).toBe(11);
    expect(JSON.parse(j.stdout)).toEqual({
      error: {
        kind: 'notCaught',
        message: 'fewer than 2 emails with a subject containing "welcome" were caught within 100 ms (1 matching caught)',
        exitCode: 11,
        hints: ['see what was caught: mailroom sandbox emails'],
      },
    });
  });

  test.each([
    [['--timeout', '10x'], 'mailroom: option \'--timeout <ms>\' argument \'10x\' is invalid. --timeout must be a duration: whole milliseconds, or a number with ms, s or m (10s)'],
    [['--timeout', '11m'], 'mailroom: --timeout must be at most 10m for sandbox wait'],
    [['--count', '0'], "mailroom: option '--count <n>' argument '0' is invalid. --count must be between 1 and 10000"],
  ])('%j is a usage error (exit 2), nothing waited for', async (args, line) => {
    const r = await runInProcess(['sandbox', 'wait', ...args], { env });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(line);
  });

  test.each([['--to'], ['--subject']])('an empty or blank %s (an unset shell variable) is exit 2, not a wait for any email', async (flag) => {
    await send('ada@customer.test', 'Welcome');
    for (const blank of ['', '  ']) {
      const r = await runInProcess(['sandbox', 'wait', flag, blank, '--timeout', '0.2s'], { env });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`mailroom: ${flag} is empty: give the ${flag === '--to' ? 'address' : 'text'} to wait for, or leave the option out\n`);
    }
  });

  test('no sandbox there: exit 6', async () => {
    const r = await runInProcess(['sandbox', 'wait', '--base-url', 'http://127.0.0.1:9'], { env });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/^mailroom: cannot reach a sandbox at http:\/\/127\.0\.0\.1:9/);
  });
});

describe('mailroom sandbox workspace create', () => {
  test('prints a new workspace and its key once; sandbox emails, wait and deliveries show that workspace with --workspace or MAILROOM_WORKSPACE', async () => {
    const made = await runInProcess(['sandbox', 'workspace', 'create', '--name', 'worker 7', '--json'], { env });
    expect(made.code, made.stderr).toBe(0);
    const ws = JSON.parse(made.stdout) as { workspaceId: string; name: string; apiKey: string; baseUrl: string };
    expect(ws).toMatchObject({ name: 'worker 7', baseUrl: sb.baseUrl });
    expect(ws.workspaceId).toMatch(/^wrk_/);
    expect(ws.apiKey).toMatch(/^sk_live_/);

    const res = await fetch(`${sb.baseUrl}/v1/emails`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ from: 'shop@example.com', to: 'ada@customer.test', subject: 'In worker 7', html: '<p>Hi</p>' }),
    });
    expect(res.status).toBe(200);
    await send('ada@customer.test', 'In the first workspace');

    const own = await runInProcess(['sandbox', 'emails', '--json'], { env: { ...env, MAILROOM_WORKSPACE: ws.workspaceId } });
    expect((JSON.parse(own.stdout) as { items: { subject: string }[] }).items.map((e) => e.subject)).toEqual(['In worker 7']);
    const first = await runInProcess(['sandbox', 'emails', '--json'], { env });
    expect((JSON.parse(first.stdout) as { items: { subject: string }[] }).items.map((e) => e.subject)).toEqual(['In the first workspace']);
    const waited = await runInProcess(['sandbox', 'wait', '--workspace', ws.workspaceId, '--subject', 'first', '--timeout', '100', '--json'], { env });
    expect(waited.code).toBe(11);
    const deliveries = await runInProcess(['sandbox', 'deliveries', '--workspace', ws.workspaceId, '--json'], { env });
    expect(JSON.parse(deliveries.stdout)).toMatchObject({ items: [], total: 0 });
    const fired = await runInProcess(['sandbox', 'trigger', 'CONTACT_CREATED', '--email', 'new@customer.test', '--workspace', ws.workspaceId, '--json'], { env });
    expect(fired.code, fired.stderr).toBe(0);
    expect((JSON.parse(fired.stdout) as { data: { contact: { workspaceId: string } } }).data.contact.workspaceId).toBe(ws.workspaceId);
    const listed = await runInProcess(['sandbox', 'workspace', '--json'], { env });
    expect((JSON.parse(listed.stdout) as { items: unknown[] }).items).toContainEqual({ id: ws.workspaceId, name: 'worker 7', emails: 1 });
    const unknown = await runInProcess(['sandbox', 'emails', '--workspace', 'wrk_unknown'], { env });
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toBe(`mailroom: no workspace wrk_unknown in the sandbox at ${sb.baseUrl}\n  workspaces last until the sandbox stops (unless it runs with --data); make one with: mailroom sandbox workspace create\n`);
  });

  test.each([[''], ['   '], ['x'.repeat(201)]])('--name %j is a usage error (exit 2) checked before the sandbox is asked, nothing made', async (name) => {
    const before = ((await (await fetch(`${sb.baseUrl}/_sandbox/workspaces`)).json()) as { items: unknown[] }).items.length;
    const r = await runInProcess(['sandbox', 'workspace', 'create', '--name', name], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('mailroom: --name: give the workspace a name of 1 to 200 characters\n');
    expect(((await (await fetch(`${sb.baseUrl}/_sandbox/workspaces`)).json()) as { items: unknown[] }).items).toHaveLength(before);
  });

  test('-q would throw the only copy of the key away: refused, nothing made', async () => {
    const r = await runInProcess(['sandbox', 'workspace', 'create', '-q'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^mailroom: -q would discard the new secret/);
    const list = (await (await fetch(`${sb.baseUrl}/_sandbox/workspaces`)).json()) as { items: unknown[] };
    expect(list.items.length).toBeGreaterThanOrEqual(1);
  });
});

describe('mailroom sandbox wait --count beyond what the sandbox keeps', () => {
  test('--count over --retain: refused at once, one line, exit 2 (not a wait until the timeout)', async () => {
    const small = await withSandbox({ config: { retain: 3 } });
    try {
      const started = Date.now();
      const r = await runInProcess(['sandbox', 'wait', '--count', '4', '--timeout', '30s'], { env: { MAILROOM_BASE_URL: small.baseUrl } });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('mailroom: --count 4 is more emails than the sandbox keeps (--retain 3): a wait for them could never see them all; wait for at most 3, or start the sandbox with a larger --retain\n');
      expect(r.code).toBe(2);
      // At the limit, it waits and is answered as usual.
      for (const n of [1, 2, 3]) {
        const res = await fetch(`${small.baseUrl}/v1/emails`, {
          method: 'POST',
          headers: { authorization: `Bearer ${small.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ from: 'shop@example.com', to: 'ada@customer.test', subject: `n${n}`, html: '<p>x</p>' }),
        });
        expect(res.status).toBe(200);
      }
      const ok = await runInProcess(['sandbox', 'wait', '--count', '3', '--json'], { env: { MAILROOM_BASE_URL: small.baseUrl } });
      expect(ok.code).toBe(0);
      expect((JSON.parse(ok.stdout) as { items: unknown[] }).items).toHaveLength(3);
    } finally {
      await small.close();
    }
  });
});
