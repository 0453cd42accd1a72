import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BIN, cleanEnv, ROOT, runCli, tempConfigDir } from '../helpers/cli.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sandbox: TestSandbox;
let env: Record<string, string>;

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

// What only the real binary shows (a real terminal, the printed retry command run by a shell) and
// --react (its bundle is imported by Node itself; under vitest's module runner one render takes ~20 s).
// Every other send case runs in-process in test/cli/send.test.ts.
describe('mailroom send (raw)', () => {
  it('a full terminal (stdin, stdout and stderr on one pty): the same view, no JSON', async () => {
    const r = await runCli([...raw, '--no-color'], { env, tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^id +trs_\w+$/m);
    expect(r.stdout).toMatch(/^status +SENT$/m);
    expect(r.stdout).not.toContain('{');
  });

  it('a real terminal of 40 columns: a long subject goes on under its value column, the labels kept clear', async () => {
    const subject = 'Your order 12345 has shipped and will arrive on Thursday';
    const r = await runCli(['send', '--from', 'ops@example.com', '--to', 'ada@example.com', '--subject', subject, '--html', '<p>Hi</p>', '--no-color'], { env, tty: true, columns: 40 });
    expect(r.code).toBe(0);
    const lines = r.stdout.replace(/\r/g, '').trimEnd().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(40);
    const at = lines.findIndex((l) => l.startsWith('subject '));
    const column = /^subject +/.exec(lines[at]!)![0].length;
    const next = lines.slice(at + 1).findIndex((l) => !l.startsWith(' '));
    const under = lines.slice(at + 1, at + 1 + next);
    expect(under.length).toBeGreaterThan(0);
    for (const line of under) expect(line).toMatch(new RegExp(`^ {${column}}\\S`));
    expect([lines[at]!.slice(column), ...under.map((l) => l.trim())].join(' ')).toBe(subject);
  });
});

describe('mailroom send: the idempotency key it used', () => {
  it.each([
    ['the answer is lost (connection cut after the API took it)', { lose: true } as const],
    ['the API answers 503', { status: 503, body: { statusCode: 503, error: 'Service Unavailable', message: 'try later' } }],
  ])('%s: says the email may have been sent and prints the exact command that retries it safely', async (_name, forced) => {
    const { recordingProxy } = await import('../helpers/recording-proxy.js');
    const proxy = await recordingProxy(sandbox.baseUrl, (req) => (req.method === 'POST' ? forced : undefined));
    try {
      const args = ['send', '--from', 'Ops <ops@example.com>', '--to', 'ada@example.com', '--subject', "Ada's report", '--html', '<p>Hi Ada</p>', '--send-at', '+2h'];
      const r = await runCli([...args, '--base-url', proxy.baseUrl, '--max-retries', '0'], { env });
      expect(r.code).toBe(6);
      expect(r.stdout).toBe('');
      const key = JSON.parse(proxy.seen[0]!.body).idempotencyKey as string;
      const sendAt = JSON.parse(proxy.seen[0]!.body).sendAt as string;
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toContain(`  the email may have been sent: to retry without sending it twice, run:`);
      const command = lines[lines.indexOf('  the email may have been sent: to retry without sending it twice, run:') + 1]!.trim();
      // The relative --send-at becomes the time the first attempt asked for; --base-url stays.
      expect(command).toBe(
        `mailroom send --from 'Ops <ops@example.com>' --to ada@example.com --subject 'Ada'\\''s report' --html '<p>Hi Ada</p>' --send-at ${sendAt} --base-url ${proxy.baseUrl} --max-retries 0 --idempotency-key ${key}`,
      );
      await proxy.close();
      // Run it as printed (through a shell, against the sandbox itself): one email, whatever happened before.
      const direct = command.replace(`--base-url ${proxy.baseUrl}`, `--base-url ${sandbox.baseUrl}`).replace(/^mailroom /, `exec ${process.execPath} ${BIN} `);
      const { stdout } = await promisify(execFile)('sh', ['-c', `${direct} --json`], { env: cleanEnv(tempConfigDir(), env) });
      const again = JSON.parse(stdout);
      const inbox = await sandbox.emails();
      expect(inbox).toHaveLength(1);
      expect(again).toMatchObject({ id: inbox[0]!.id, idempotencyKey: key, subject: "Ada's report" });
      expect(inbox[0]!.sendAt).toBe(sendAt);
    } finally {
      await proxy.close();
    }
  });

});

describe('mailroom send --react', () => {
  it('renders the component locally with --props and sends its HTML and text as a raw email', async () => {
    const r = await runCli(
      ['send', '--react', 'test/fixtures/react/Welcome.tsx', '--props', '{"name":"Ada","plan":"pro"}', '--from', 'ops@example.com', '--to', 'ada@example.com', '--subject', 'Welcome'],
      { env, cwd: ROOT },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'raw', subject: 'Welcome' });
    const email = (await sandbox.emails())[0]!;
    expect(email.html).toMatch(/^<!DOCTYPE html/);
    expect(email.html).toContain('Welcome, <!-- -->Ada<!-- -->!');
    expect(email.html).toContain('pro');
    expect(email.text).toContain('WELCOME, ADA!');
  });

  it('a component that does not build: exit 2, one line naming the file, nothing sent', async () => {
    const r = await runCli(['send', '--react', 'test/fixtures/react/Broken.jsx', '--from', 'ops@example.com', '--to', 'a@example.com', '--subject', 'S'], { env, cwd: ROOT });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^mailroom: --react: cannot build test\/fixtures\/react\/Broken\.jsx: /);
    expect(await sandbox.emails()).toHaveLength(0);
  });
});
