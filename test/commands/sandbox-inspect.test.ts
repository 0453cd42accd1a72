import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitCodeOf, exitNameOf } from '../../src/exit-codes.js';
import { buildProgram, loadProgram } from '../../src/program.js';
import { fakeContext } from '../helpers/context.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

// buildProgram registers the command definitions loaded first (they load on demand).
await loadProgram();

let sb: TestSandbox;

/** Runs `mailroom sandbox …` in-process against the test sandbox; what it printed, or what it threw (with the exit code's name and number the CLI gives it). */
async function mailroom(argv: string[], opts: { tty?: boolean; env?: Record<string, string> } = {}) {
  const { ctx, stdout, stderr } = fakeContext({ tty: { stdout: opts.tty ?? false }, env: { MAILROOM_BASE_URL: sb.baseUrl, ...opts.env } });
  const args = ['sandbox', ...argv];
  let error: (Error & { kind?: string; exitCode?: number }) | undefined;
  try {
    await buildProgram(ctx, args).parseAsync(['node', 'mailroom', ...args]);
  } catch (e) {
    error = Object.assign(e as Error, { kind: exitNameOf(e), exitCode: exitCodeOf(e) });
  }
  await new Promise((resolve) => setImmediate(resolve));
  return { stdout: stdout(), stderr: stderr(), error };
}

const raw = (over: Record<string, unknown> = {}) => ({ from: 'ops@example.com', to: 'ada@customer.test', subject: 'Hello', html: '<p>Hi <b>Ada</b></p>', ...over });

beforeAll(async () => {
  sb = await withSandbox({ config: { verifiedDomains: ['example.com'] } });
});
afterAll(() => sb.close());
afterEach(() => sb.reset());

describe('mailroom sandbox emails / email / deliveries / open', () => {
  it('emails: JSON when piped, oldest first; --to and --last filter on the sandbox', async () => {
    const call = client(sb);
    const ids: string[] = [];
    for (const to of ['ada@customer.test', 'bob@customer.test', 'ada.b@customer.test']) ids.push((await call('POST', '/v1/emails', raw({ to }))).body.email.id);
    const all = await mailroom(['emails']);
    expect(all.error).toBeUndefined();
    expect(JSON.parse(all.stdout)).toMatchObject({ hasMore: false, total: 3 });
    expect(JSON.parse(all.stdout).items.map((e: { id: string }) => e.id)).toEqual(ids);
    const ada = await mailroom(['emails', '--to', 'ADA', '--last', '1']);
    expect(JSON.parse(ada.stdout).items.map((e: { id: string }) => e.id)).toEqual([ids[2]]);
    expect(JSON.parse((await mailroom(['emails', '--last', '2'])).stdout)).toMatchObject({ hasMore: true, total: 3 });
    const table = await mailroom(['emails', '--search', 'bob@'], { tty: true });
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+STATUS\s+TO\s+SUBJECT\s+CREATED$/);
    expect(table.stdout).toContain(`${ids[1]}  SENT    bob@customer.test  Hello`);
    const last = await mailroom(['emails', '--last', '2'], { tty: true });
    expect(last.stderr).toBe('Showing the newest 2 of 3.\n');
    // The note is for people reading a table: JSON and -q carry nothing on stderr.
    expect((await mailroom(['emails', '--last', '2'])).stderr).toBe('');
    expect(await mailroom(['emails', '--last', '2', '-q'], { tty: true })).toMatchObject({ stdout: '', stderr: '' });
    expect((await mailroom(['emails', '--last', '0'])).error).toMatchObject({ code: 'commander.invalidArgument', message: expect.stringContaining('--last must be between 1 and') });
  });

  it('email <id>: --html, --text, --json; fields and text on a terminal; an unknown id exits 4', async () => {
    const id = (await client(sb)('POST', '/v1/emails', raw())).body.email.id as string;
    expect((await mailroom(['email', id, '--html'])).stdout).toBe('<p>Hi <b>Ada</b></p>\n');
    expect((await mailroom(['email', id, '--text'])).stdout).toBe('Hi Ada\n');
    const json = JSON.parse((await mailroom(['email', id, '--json'])).stdout);
    // Everything the terminal view shows, its inbox link included.
    expect(json).toEqual({ ...(await client(sb)('GET', `/_sandbox/emails/${id}`)).body.email, inbox: `${sb.baseUrl}/inbox/${id}` });
    const human = await mailroom(['email', id], { tty: true });
    expect(human.stdout).toMatch(new RegExp(`^id\\s+${id}\\nstatus\\s+SENT\\n`));
    expect(human.stdout).toContain(`inbox    ${sb.baseUrl}/inbox/${id}`);
    expect(human.stdout.endsWith('\n\nHi Ada\n')).toBe(true);
    const missing = await mailroom(['email', 'trs_nope']);
    expect(missing.error).toMatchObject({ kind: 'rejected', exitCode: 4, message: `no email trs_nope in the sandbox at ${sb.baseUrl}` });
    expect(missing.stdout).toBe('');
    // Not an email id: refused before any request (".." would have asked for /_sandbox/ instead).
    for (const bad of ['..', 'nope']) {
      expect((await mailroom(['email', bad])).error).toMatchObject({ kind: 'usage', exitCode: 2, message: `"${bad}" is not an email id: expected trs_...` });
      expect((await mailroom(['open', bad])).error).toMatchObject({ kind: 'usage', exitCode: 2, message: `"${bad}" is not an email id: expected trs_...` });
    }
    expect((await mailroom(['email', id, '--html', '--text'])).error).toMatchObject({ exitCode: 2, message: '--html and --text cannot be used together: pick one' });
  });

  it('deliveries: every attempt as JSON (signed body and signature included), a table on a terminal', async () => {
    const call = client(sb);
    await call('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/unreachable', events: ['CONTACT_CREATED'] });
    await call('POST', '/_sandbox/events', { event: 'CONTACT_CREATED' });
    await expect.poll(() => sb.deliveries().then((d) => d.length)).toBe(1);
    const page = JSON.parse((await mailroom(['deliveries'])).stdout);
    expect(page).toMatchObject({ hasMore: false, total: 1 });
    const [d] = page.items;
    expect(d).toMatchObject({ event: 'CONTACT_CREATED', url: 'http://127.0.0.1:9/unreachable', attempt: 1, error: 'ECONNREFUSED', body: expect.stringContaining('"CONTACT_CREATED"'), signature: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const table = await mailroom(['deliveries'], { tty: true });
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+WHEN\s+EVENT\s+URL\s+TRY\s+RESULT$/);
    expect(table.stdout).toMatch(new RegExp(`^${d.id}\\s+.*CONTACT_CREATED\\s+http://127\\.0\\.0\\.1:9/unreachable\\s+1\\s+ECONNREFUSED, retry (just now|in a moment|in \\d+ seconds?)\\n`, 'm'));
    for (const hook of (await call('GET', '/v1/webhooks')).body.webhooks.items) await call('DELETE', `/v1/webhooks/${hook.id}`);
  });

  it('deliveries resend <id>: the same bytes again as a new attempt; --json lists every attempt with its id; bad and unknown ids', async () => {
    const call = client(sb);
    const bodies: string[] = [];
    let n = 0;
    const { createServer } = await import('node:http');
    const app = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        bodies.push(body);
        res.writeHead(++n === 1 ? 500 : 200).end();
      });
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(app.address() as { port: number }).port}/hook`;
      await call('POST', '/v1/webhooks', { url, events: ['CONTACT_CREATED'] });
      await call('POST', '/_sandbox/events', { event: 'CONTACT_CREATED' });
      await sb.deliveriesIdle();
      const attempts = (JSON.parse((await mailroom(['deliveries', '--json'])).stdout) as { items: Array<{ id: string; attempt: number; statusCode: number; resendOf?: string }> }).items;
      expect(attempts.map((a) => [a.attempt, a.statusCode])).toEqual([
        [1, 500],
        [2, 200],
      ]);
      const first = attempts[0]!.id;
      expect(first).toMatch(/^dlv_/);
      const resent = await mailroom(['deliveries', 'resend', first, '--json']);
      expect(resent.error).toBeUndefined();
      expect(JSON.parse(resent.stdout)).toEqual({ resent: first, webhookId: expect.stringMatching(/^wh_/), event: 'CONTACT_CREATED' });
      await sb.deliveriesIdle();
      expect(bodies).toHaveLength(3);
      expect(bodies[2]).toBe(bodies[0]);
      const after = (JSON.parse((await mailroom(['deliveries'])).stdout) as { items: Array<{ id: string; resendOf?: string; statusCode: number }> }).items;
      expect(after[2]).toMatchObject({ resendOf: first, statusCode: 200 });
      const human = await mailroom(['deliveries', 'resend', after[1]!.id], { tty: true });
      expect(human.stdout).toMatch(new RegExp(`^Resent ${after[1]!.id} \\(CONTACT_CREATED\\) to webhook wh_\\S+ as a new delivery\\n$`));
      await sb.deliveriesIdle();
      expect((await mailroom(['deliveries', 'resend', 'nope'])).error).toMatchObject({ kind: 'usage', exitCode: 2, message: '"nope" is not a delivery id (dlv_…, as sandbox deliveries lists it)' });
      expect((await mailroom(['deliveries', 'resend', 'dlv_doesNotExist'])).error).toMatchObject({ kind: 'rejected', exitCode: 4, message: `no delivery dlv_doesNotExist in the sandbox at ${sb.baseUrl}` });
    } finally {
      await new Promise((r) => app.close(r));
    }
    for (const hook of (await call('GET', '/v1/webhooks')).body.webhooks.items) await call('DELETE', `/v1/webhooks/${hook.id}`);
  });

  it('deliveries: one to a host off this machine is listed as not delivered, with why', async () => {
    const call = client(sb);
    await call('POST', '/v1/webhooks', { url: 'https://example.com/h', events: ['CONTACT_CREATED'] });
    await call('POST', '/_sandbox/events', { event: 'CONTACT_CREATED' });
    await sb.deliveriesIdle();
    const [d] = (JSON.parse((await mailroom(['deliveries'])).stdout) as { items: Array<{ error: string; notDelivered: string }> }).items;
    expect(d).toMatchObject({ error: 'not delivered', notDelivered: expect.stringMatching(/^example\.com is not on this machine/) });
    const table = await mailroom(['deliveries'], { tty: true, env: { COLUMNS: '300' } });
    expect(table.stdout).toContain('not delivered: example.com is not on this machine');
    for (const hook of (await call('GET', '/v1/webhooks')).body.webhooks.items) await call('DELETE', `/v1/webhooks/${hook.id}`);
  });

  it('open: prints the inbox URL and opens nothing unless --browser; no sandbox there exits 6', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-open-'));
    const fakeBrowser = join(dir, 'browser.sh');
    writeFileSync(fakeBrowser, `#!/bin/sh\nprintf '%s' "$1" > "${dir}/opened"\n`);
    chmodSync(fakeBrowser, 0o755);
    const plain = await mailroom(['open'], { env: { BROWSER: fakeBrowser } });
    expect(plain.stdout).toBe(`${sb.baseUrl}/\n`);
    const id = (await client(sb)('POST', '/v1/emails', raw())).body.email.id as string;
    const opened = await mailroom(['open', id, '--browser'], { env: { BROWSER: fakeBrowser } });
    expect(opened.error).toBeUndefined();
    expect(opened.stdout).toBe(`${sb.baseUrl}/inbox/${id}\n`);
    await expect.poll(() => { try { return readFileSync(join(dir, 'opened'), 'utf8'); } catch { return ''; } }).toBe(`${sb.baseUrl}/inbox/${id}`);
    const noOpener = await mailroom(['open', '--browser'], { env: { BROWSER: join(dir, 'missing') } });
    expect(noOpener.error).toMatchObject({ exitCode: 1, message: expect.stringContaining('cannot open a browser') });
    const nobody = await mailroom(['open', '--base-url', 'http://127.0.0.1:9']);
    expect(nobody.error).toMatchObject({ kind: 'network', exitCode: 6, message: 'cannot reach a sandbox at http://127.0.0.1:9: ECONNREFUSED' });
    expect(nobody.stdout).toBe('');
  });
});

describe('sandbox emails / deliveries tables on a terminal use the table column kinds', () => {
  it('fit the terminal width (free text shortened with …) and show dates relative', async () => {
    const { runInProcess } = await import('../helpers/context.js');
    const call = client(sb);
    await call('POST', '/v1/emails', raw({ subject: `A very long subject line ${'that keeps going '.repeat(6)}end` }));
    const r = await runInProcess(['sandbox', 'emails', '--no-color'], { env: { MAILROOM_BASE_URL: sb.baseUrl }, tty: 'stdout', columns: 80 });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+TO\s+SUBJECT\s+CREATED$/);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines[1]).toContain('…');
    expect(lines[1]).toMatch(/(just now|seconds? ago|minutes? ago)$/);
    expect(lines[1]).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
  });

  it('deliveries: WHEN relative, URL shortened to fit', async () => {
    const { runInProcess } = await import('../helpers/context.js');
    const call = client(sb);
    await call('POST', '/v1/webhooks', { url: `http://127.0.0.1:9/${'very-long-path-segment/'.repeat(6)}hook`, events: ['CONTACT_CREATED'], token: 'wht_testtesttest' });
    await call('POST', '/_sandbox/events', { event: 'CONTACT_CREATED' });
    const r = await runInProcess(['sandbox', 'deliveries', '--no-color'], { env: { MAILROOM_BASE_URL: sb.baseUrl }, tty: 'stdout', columns: 80 });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+WHEN\s+EVENT\s+URL\s+/);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines[1]).toMatch(/^dlv_\S+\s+(just now|\d+ seconds? ago)\s+CONTACT_CREATED\s+http:\/\/127\.[^ ]*…\s+1\s+ECONNREFUSE/);
  });
});

describe('a terminal list has a default limit; piped output keeps everything', () => {
  const seedEmails = async (n: number) => {
    const call = client(sb);
    for (let b = 0; b < n; b += 50) {
      const emails = Array.from({ length: Math.min(50, n - b) }, (_, i) => raw({ to: `user${b + i}@customer.test` }));
      expect((await call('POST', '/v1/emails/batch', { emails })).status).toBe(200);
    }
  };
  const rows = (stdout: string) => stdout.trimEnd().split('\n').length - 1;

  it('sandbox emails: the newest 50 on a terminal, with a note naming --all and --last; --all, --last and a pipe as asked', async () => {
    await seedEmails(120);
    const table = await mailroom(['emails'], { tty: true });
    expect(rows(table.stdout)).toBe(50);
    expect(table.stdout.trimEnd().split('\n').at(-1)).toContain('user119@customer.test');
    expect(table.stderr).toBe('Showing the newest 50 of 120: --all shows every one, --last <n> another number.\n');
    const all = await mailroom(['emails', '--all'], { tty: true });
    expect(rows(all.stdout)).toBe(120);
    expect(all.stderr).toBe('');
    const last = await mailroom(['emails', '--last', '70'], { tty: true });
    expect(rows(last.stdout)).toBe(70);
    expect(last.stderr).toBe('Showing the newest 70 of 120.\n');
    const piped = await mailroom(['emails']);
    expect(JSON.parse(piped.stdout).items).toHaveLength(120);
    expect(piped.stderr).toBe('');
    const json = await mailroom(['emails', '--json'], { tty: true });
    expect(JSON.parse(json.stdout).items).toHaveLength(120);
    expect((await mailroom(['emails', '--all', '--last', '3'])).error).toMatchObject({ message: expect.stringContaining("'--all' cannot be used with option '--last") });
  });

  it('sandbox deliveries: the same rule', async () => {
    const call = client(sb);
    for (let w = 0; w < 12; w++) await call('POST', '/v1/webhooks', { url: `http://127.0.0.1:9/hook${w}`, events: ['CONTACT_CREATED', 'CONTACT_UPDATED', 'CONTACT_DELETED', 'CONTACT_UNSUBSCRIBED', 'CONTACT_RESUBSCRIBED'] });
    for (const event of ['CONTACT_CREATED', 'CONTACT_UPDATED', 'CONTACT_DELETED', 'CONTACT_UNSUBSCRIBED', 'CONTACT_RESUBSCRIBED']) await call('POST', '/_sandbox/events', { event });
    await expect.poll(() => sb.deliveries().then((d) => d.length)).toBeGreaterThanOrEqual(60);
    const total = (await sb.deliveries()).length;
    const table = await mailroom(['deliveries'], { tty: true });
    expect(rows(table.stdout)).toBe(50);
    expect(table.stderr).toMatch(/^Showing the newest 50 of \d+: --all shows every one, --last <n> another number\.\n$/);
    expect(rows((await mailroom(['deliveries', '--all'], { tty: true })).stdout)).toBeGreaterThanOrEqual(total);
    expect(JSON.parse((await mailroom(['deliveries'])).stdout).items.length).toBeGreaterThanOrEqual(total);
    for (const hook of (await call('GET', '/v1/webhooks')).body.webhooks.items) await call('DELETE', `/v1/webhooks/${hook.id}`);
  });
});
