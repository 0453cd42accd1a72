import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInProcess } from '../helpers/context.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sandbox: TestSandbox;
let env: Record<string, string>;
const files = mkdtempSync(join(tmpdir(), 'mailroom-send-'));

beforeAll(async () => {
  sandbox = await withSandbox({ config: { verifiedDomains: ['example.com'] } });
  env = { MAILROOM_BASE_URL: sandbox.baseUrl, MAILROOM_API_KEY: sandbox.apiKey };
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(async () => {
  await sandbox.reset();
});

const raw = ['send', '--from', 'Ops <ops@example.com>', '--to', 'ada@example.com', '--subject', 'Hello', '--html', '<p>Hi Ada</p>'];

describe('mailroom send (raw)', () => {
  it('piped: prints the API email object as JSON; the inbox holds the exact email with a generated idempotency key', async () => {
    const r = await runInProcess([...raw, '--text', 'Hi Ada', '--preview-text', 'pre', '--reply-to', 'help@example.com', '--property', 'plan=pro', '--group-by', 'onboarding', '--from-name', 'Ops Team'], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: 'SENT', to: 'ada@example.com', type: 'raw', from: 'Ops <ops@example.com>', subject: 'Hello', groupBy: 'onboarding' });
    expect(out.id).toMatch(/^trs_/);
    const [email, ...rest] = await sandbox.emails();
    expect(rest).toHaveLength(0);
    expect(email).toMatchObject({
      id: out.id,
      from: 'Ops <ops@example.com>',
      fromName: 'Ops Team',
      subject: 'Hello',
      html: '<p>Hi Ada</p>',
      text: 'Hi Ada',
      previewText: 'pre',
      replyTo: 'help@example.com',
      contactProperties: { plan: 'pro' },
      groupBy: 'onboarding',
      settings: { trackClicks: true, trackOpens: false },
    });
    expect(email!.idempotencyKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('terminal: prints a key/value view with the id and status, nothing on stderr', async () => {
    const r = await runInProcess([...raw, '--no-color'], { env, tty: 'stdout' });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const id = (await sandbox.emails())[0]!.id;
    expect(r.stdout).toMatch(new RegExp(`^id +${id}\\n`));
    expect(r.stdout).toMatch(/^status +SENT$/m);
    expect(r.stdout).toMatch(/^to +ada@example\.com$/m);
    expect(r.stdout).toMatch(/^idempotency key +[0-9a-f-]{36}$/m);
    expect(r.stdout).not.toContain('{');
  });

  it('--json on a terminal prints JSON; -q prints nothing and still sends', async () => {
    const j = await runInProcess([...raw, '--json'], { env, tty: 'stdout' });
    expect(JSON.parse(j.stdout).status).toBe('SENT');
    const q = await runInProcess([...raw, '-q'], { env });
    expect(q).toEqual({ stdout: '', stderr: '', code: 0 });
    const qt = await runInProcess([...raw, '-q'], { env, tty: true });
    expect(qt).toEqual({ stdout: '', stderr: '', code: 0 });
    expect(await sandbox.emails()).toHaveLength(3);
  });

  it('--idempotency-key: sending twice with the same key delivers once and answers the same id', async () => {
    const a = await runInProcess([...raw, '--idempotency-key', 'order-42'], { env });
    const b = await runInProcess([...raw, '--idempotency-key', 'order-42'], { env });
    expect(JSON.parse(a.stdout).id).toBe(JSON.parse(b.stdout).id);
    const inbox = await sandbox.emails();
    expect(inbox).toHaveLength(1);
    expect(inbox[0]!.idempotencyKey).toBe('order-42');
  });

  it('--html-file, --text-file from stdin, tracking flags', async () => {
    const html = join(files, 'body.html');
    writeFileSync(html, '<h1>From a file</h1>');
    const r = await runInProcess(['send', '--from', 'ops@example.com', '--to', 'b@example.com', '--subject', 'F', '--html-file', html, '--text-file', '-', '--track-opens', '--no-track-clicks'], { env, input: 'plain from stdin' });
    expect(r.code).toBe(0);
    expect((await sandbox.emails())[0]).toMatchObject({ html: '<h1>From a file</h1>', text: 'plain from stdin', settings: { trackClicks: false, trackOpens: true } });
  });

  it('--send-at +2h schedules the email (status SCHEDULED, sendAt two hours ahead)', async () => {
    const before = Date.now();
    const r = await runInProcess([...raw, '--send-at', '+2h'], { env });
    expect(JSON.parse(r.stdout).status).toBe('SCHEDULED');
    const sendAt = Date.parse((await sandbox.emails())[0]!.sendAt!);
    expect(sendAt - before).toBeGreaterThanOrEqual(2 * 3600_000);
    expect(sendAt - before).toBeLessThan(2 * 3600_000 + 60_000);
  });

  it('--send-at with an ISO time and zone', async () => {
    const at = new Date(Date.now() + 3 * 86400_000);
    at.setUTCMilliseconds(0);
    const iso = at.toISOString().replace('.000Z', '+00:00');
    const r = await runInProcess([...raw, '--send-at', iso], { env });
    expect(r.code).toBe(0);
    expect((await sandbox.emails())[0]!.sendAt).toBe(at.toISOString());
  });

  it('a sender the sandbox has not verified: exit 4 with the allowed senders as hints', async () => {
    const r = await runInProcess(['send', '--from', 'ops@unverified.test', '--to', 'a@example.com', '--subject', 'S', '--html', '<p>x</p>'], { env });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^mailroom: .*ops@unverified\.test is not a verified/);
    expect(r.stderr).toMatch(/^ {2}allowed domains: example\.com$/m);
    expect(await sandbox.emails()).toHaveLength(0);
  });

  it('no API key anywhere: exit 3 and nothing sent', async () => {
    const r = await runInProcess(raw, { env: { MAILROOM_BASE_URL: sandbox.baseUrl } });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^mailroom: .*API key/);
    expect(await sandbox.emails()).toHaveLength(0);
  });

  it('a wrong API key: exit 3 with the login hint', async () => {
    const r = await runInProcess(raw, { env: { ...env, MAILROOM_API_KEY: 'sk_live_wrongwrongwrongwrong' } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^mailroom: /);
    expect(r.stderr).toContain('MAILROOM_API_KEY');
  });
});

describe('mailroom send (templated)', () => {
  it('--template with --var and --vars: variables substituted; variables {} sent when none given', async () => {
    const r = await runInProcess(['send', '--template', 'welcome', '--to', 'ada@example.com', '--vars', '{"name":"Bob","extra":1}', '--var', 'name=Ada'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'templated', template: 'welcome', to: 'ada@example.com' });
    const email = (await sandbox.emails())[0]!;
    expect(email.variables).toEqual({ name: 'Ada', extra: 1 });
    expect(email.html).toContain('Hi Ada');

    const dry = await runInProcess(['send', '--template', 'welcome', '--to', 'ada@example.com', '--dry-run', '--idempotency-key', 'k'], { env });
    expect(JSON.parse(dry.stdout)).toEqual({ template: 'welcome', to: 'ada@example.com', variables: {}, idempotencyKey: 'k' });
  });

  it('--track-clicks and --no-track-opens override the templated defaults', async () => {
    const r = await runInProcess(['send', '--template', 'welcome', '--to', 'ada@example.com', '--var', 'name=Ada', '--track-clicks', '--no-track-opens'], { env });
    expect(r.code).toBe(0);
    expect((await sandbox.emails())[0]!.settings).toEqual({ trackClicks: true, trackOpens: false });
  });

  it('--vars-file', async () => {
    const vars = join(files, 'vars.json');
    writeFileSync(vars, '{"name":"Grace"}');
    const r = await runInProcess(['send', '--template', 'welcome', '--to', 'g@example.com', '--vars-file', vars, '-q'], { env });
    expect(r.code).toBe(0);
    expect((await sandbox.emails())[0]!.html).toContain('Hi Grace');
  });

  it('an unknown template is rejected by the API: exit 4', async () => {
    const r = await runInProcess(['send', '--template', 'nope', '--to', 'g@example.com'], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^mailroom: .*template/i);
  });
});

describe('mailroom send --file and --dry-run', () => {
  it('--file - reads the whole payload from stdin; flags override its fields', async () => {
    const payload = { from: 'ops@example.com', to: 'old@example.com', subject: 'From file', html: '<p>f</p>', settings: { trackClicks: false } };
    const r = await runInProcess(['send', '--file', '-', '--to', 'new@example.com', '--track-opens'], { env, input: JSON.stringify(payload) });
    expect(r.code).toBe(0);
    expect((await sandbox.emails())[0]).toMatchObject({ to: 'new@example.com', subject: 'From file', settings: { trackClicks: false, trackOpens: true } });
  });

  it('--dry-run prints the exact body and sends nothing, without needing an API key', async () => {
    const r = await runInProcess([...raw, '--dry-run', '--idempotency-key', 'k-1', '--send-at', '+30m'], { env: { MAILROOM_BASE_URL: sandbox.baseUrl } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const body = JSON.parse(r.stdout);
    expect(Object.keys(body)).toEqual(['from', 'to', 'subject', 'html', 'sendAt', 'idempotencyKey']);
    expect(body).toMatchObject({ from: 'Ops <ops@example.com>', to: 'ada@example.com', subject: 'Hello', html: '<p>Hi Ada</p>', idempotencyKey: 'k-1' });
    expect(await sandbox.emails()).toHaveLength(0);
  });
});

describe('mailroom send --help', () => {
  it('shows the flags and examples', async () => {
    const r = await runInProcess(['send', '--help']);
    expect(r.code).toBe(0);
    for (const flag of ['--from-name', '--html-file', '--vars-file', '--react', '--props', '--no-track-clicks', '--send-at', '--idempotency-key', '--file', '--dry-run']) {
      expect(r.stdout).toContain(flag);
    }
    expect(r.stdout).toContain('Examples:');
    expect(r.stdout).toContain('$ mailroom send --template welcome');
  });
});

describe('mailroom send: a lost response', () => {
  it('is retried with the same idempotency key and the email is sent once', async () => {
    const { recordingProxy } = await import('../helpers/recording-proxy.js');
    let posts = 0;
    const proxy = await recordingProxy(sandbox.baseUrl, (req) => (req.method === 'POST' && req.path === '/v1/emails' && ++posts === 1 ? { lose: true } : undefined));
    try {
      const r = await runInProcess(raw, { env: { ...env, MAILROOM_BASE_URL: proxy.baseUrl } });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const sent = proxy.seen.filter((s) => s.method === 'POST');
      expect(sent).toHaveLength(2);
      const keys = sent.map((s) => JSON.parse(s.body).idempotencyKey as string);
      expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(keys[1]).toBe(keys[0]);
      const inbox = await sandbox.emails();
      expect(inbox).toHaveLength(1);
      expect(JSON.parse(r.stdout).id).toBe(inbox[0]!.id);
    } finally {
      await proxy.close();
    }
  });
});

describe('mailroom send: a single-value flag given twice', () => {
  it('--to twice: exit 2, one line pointing at batch, nothing sent', async () => {
    const r = await runInProcess([...raw, '--to', 'bob@example.com'], { env });
    expect(r).toEqual({ code: 2, stdout: '', stderr: 'mailroom: --to was given more than once; give it once (an email has one recipient: to send to many, use `mailroom batch`)\n' });
    expect(await sandbox.emails()).toHaveLength(0);
  });

  it('--subject twice (also as --subject=...): exit 2 naming it, nothing sent', async () => {
    const r = await runInProcess([...raw, '--subject=Other'], { env });
    expect(r).toEqual({ code: 2, stdout: '', stderr: 'mailroom: --subject was given more than once; give it once\n' });
    expect(await sandbox.emails()).toHaveLength(0);
  });
});

describe('mailroom send: the idempotency key it used', () => {
  it('--json carries idempotencyKey next to the API answer: the generated one, or the one given', async () => {
    const a = await runInProcess(raw, { env });
    expect(a.code, a.stderr).toBe(0);
    const out = JSON.parse(a.stdout);
    expect(out.idempotencyKey).toBe((await sandbox.emails())[0]!.idempotencyKey);
    expect(out.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    const b = await runInProcess([...raw, '--idempotency-key', 'order-7', '--json'], { env, tty: 'stdout' });
    expect(JSON.parse(b.stdout)).toMatchObject({ status: 'SENT', to: 'ada@example.com', idempotencyKey: 'order-7' });
  });

  it('a connection refused before anything was sent: no retry command, since nothing reached the API', async () => {
    const r = await runInProcess([...raw, '--base-url', 'http://127.0.0.1:9', '--max-retries', '0'], { env });
    expect(r.code).toBe(6);
    expect(r.stderr).not.toContain('may have been sent');
  });

  it('an --api-key on the command line is never printed in the retry command', async () => {
    const { recordingProxy } = await import('../helpers/recording-proxy.js');
    const proxy = await recordingProxy(sandbox.baseUrl, () => ({ lose: true }));
    try {
      const r = await runInProcess([...raw, '--api-key', sandbox.apiKey, '--base-url', proxy.baseUrl, '--max-retries', '0'], { env: { MAILROOM_API_KEY: undefined } });
      expect(r.code).toBe(6);
      expect(r.stderr).toContain('may have been sent');
      expect(r.stderr).not.toContain(sandbox.apiKey);
      expect(r.stderr).toContain("--api-key '<your key>'");
    } finally {
      await proxy.close();
    }
  });
});

describe('mailroom send: an idempotency key already used for another email', () => {
  it('exit 4: says the key belongs to another email and nothing new was sent; the inbox keeps the first one only', async () => {
    const first = await runInProcess([...raw, '--idempotency-key', 'order-1'], { env });
    expect(first.code).toBe(0);
    const id = JSON.parse(first.stdout).id as string;
    const r = await runInProcess(['send', '--from', 'ops@example.com', '--to', 'bob@example.com', '--subject', 'Refund', '--html', '<p>x</p>', '--idempotency-key', 'order-1', '--json'], { env });
    expect(r.code).toBe(4);
    // Under --json the error is also the one JSON document on stdout; nothing claims a send.
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { kind: 'rejected', exitCode: 4 } });
    expect(r.stderr).toBe(
      `mailroom: idempotency key order-1 was already used for another email (${id}, to ada@example.com, subject "Hello"; to there "ada@example.com", here "bob@example.com"; from there "Ops <ops@example.com>", here "ops@example.com"; subject there "Hello", here "Refund"): the API returned that one and sent nothing new\n` +
        '  send this email with a new key (or without --idempotency-key: each send gets its own)\n',
    );
    const inbox = await sandbox.emails();
    expect(inbox.map((e) => e.to)).toEqual(['ada@example.com']);
  });

  it('another sender under a used key (issue: exit 0 showing the old email) is a conflict, its display name too; so are another group and a schedule', async () => {
    const first = await runInProcess([...raw, '--idempotency-key', 'order-1', '--group-by', 'orders', '--json'], { env });
    expect(first.code).toBe(0);
    const id = JSON.parse(first.stdout).id as string;
    const billing = ['send', '--from', 'Billing <billing@example.com>', '--to', 'ada@example.com', '--subject', 'Hello', '--html', '<p>Hi Ada</p>', '--group-by', 'orders', '--idempotency-key', 'order-1'];
    const r = await runInProcess(billing, { env });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `mailroom: idempotency key order-1 was already used for another email (${id}, to ada@example.com, subject "Hello"; from there "Ops <ops@example.com>", here "Billing <billing@example.com>"): the API returned that one and sent nothing new\n` +
        '  send this email with a new key (or without --idempotency-key: each send gets its own)\n',
    );
    const renamed = await runInProcess(['send', '--from', 'Ada Ops <ops@example.com>', ...raw.slice(3), '--group-by', 'orders', '--idempotency-key', 'order-1'], { env });
    expect(renamed.code).toBe(4);
    expect(renamed.stderr).toContain('from there "Ops <ops@example.com>", here "Ada Ops <ops@example.com>"');
    const regrouped = await runInProcess([...raw, '--group-by', 'refunds', '--idempotency-key', 'order-1'], { env });
    expect(regrouped.code).toBe(4);
    expect(regrouped.stderr).toContain('groupBy there "orders", here "refunds"');
    const ungrouped = await runInProcess([...raw, '--idempotency-key', 'order-1'], { env });
    expect(ungrouped.code).toBe(4);
    expect(ungrouped.stderr).toContain('groupBy there "orders", here none');
    // The same email again, address case aside, is the retry the key is for: exit 0.
    const retry = await runInProcess(['send', '--from', 'Ops <OPS@example.com>', '--to', 'Ada@Example.com', ...raw.slice(5), '--group-by', 'orders', '--idempotency-key', 'order-1'], { env });
    expect(retry.stderr).toBe('');
    expect(retry.code).toBe(0);

    expect((await runInProcess([...raw, '--send-at', '+2h', '--idempotency-key', 'later-1'], { env })).code).toBe(0);
    const now = await runInProcess([...raw, '--idempotency-key', 'later-1'], { env });
    expect(now.code).toBe(4);
    expect(now.stderr).toContain('sendAt there "a scheduled time", here none');
    expect((await sandbox.emails()).map((e) => e.to)).toEqual(['ada@example.com', 'ada@example.com']);
  });

  it('a template differing is caught too; the same email again is still exit 0', async () => {
    const t = ['send', '--template', 'welcome', '--to', 'ada@example.com', '--var', 'name=Ada', '--idempotency-key', 'tpl-1'];
    expect((await runInProcess(t, { env })).code).toBe(0);
    expect((await runInProcess(t, { env })).code).toBe(0);
    const other = await runInProcess([...raw, '--idempotency-key', 'tpl-1'], { env });
    expect(other.code).toBe(4);
    expect(other.stderr).toMatch(/^mailroom: idempotency key tpl-1 was already used for another email \(trs_\w+, to ada@example\.com, template welcome; type there "templated", here "raw"\)/);
    expect(await sandbox.emails()).toHaveLength(1);
  });
});

describe('mailroom send: a timeout', () => {
  it('the command that retries it safely raises --timeout, as the hint says to, instead of repeating the one that ran out', async () => {
    const slow = await withSandbox({ config: { verifiedDomains: ['example.com'], faults: { latencyMs: 400 } } });
    try {
      const r = await runInProcess([...raw, '--timeout', '100', '--max-retries', '0'], { env: { MAILROOM_BASE_URL: slow.baseUrl, MAILROOM_API_KEY: slow.apiKey } });
      expect(r.code).toBe(6);
      expect(r.stderr).toContain('raise --timeout <ms> if the API is slow');
      const command = /^\s+(mailroom send .*)$/m.exec(r.stderr)?.[1] ?? '';
      expect(command).toMatch(/ --timeout 30000 /);
      expect(command).not.toContain('--timeout 100');
      expect(command).toMatch(/--idempotency-key \S+$/);
    } finally {
      await slow.close();
    }
  });
});
