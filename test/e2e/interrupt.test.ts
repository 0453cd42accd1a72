import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { runCli } from '../helpers/cli.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

// A real terminal session carries cursor and colour escapes; assertions read the text.
// eslint-disable-next-line no-control-regex
const plain = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
const CTRL_C = '\x03';
// script(1) turns the end of its stdin into an end of file on the terminal: keep typing nothing
// until the command has answered the Ctrl-C, as a user would.
const HOLD = { after: /interrupted/, send: '' };

let sandbox: TestSandbox;
let env: Record<string, string>;
beforeAll(async () => {
  sandbox = await withSandbox();
  env = { MAILROOM_BASE_URL: sandbox.baseUrl, MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_WORKSPACE: sandbox.workspaceId };
});
afterAll(() => sandbox.close());

describe('Ctrl-C while a command waits for stdin on a terminal', () => {
  const readers: [string[], string][] = [
    [['send', '--file', '-', '--dry-run'], 'the email'],
    [['send', '--to', 'b@example.com', '--template', 'welcome', '--vars-file', '-', '--dry-run'], 'the template variables'],
    [['api', 'POST', '/v1/emails', '--data', '-'], 'the request body'],
    [['webhooks', 'verify', '--payload', '-', '--token', 'wht_testtesttesttesttest', '--signature', 'ab'], 'the payload'],
    [['config', 'set', 'api-key', '-'], 'the API key'],
  ];
  for (const [args, what] of readers) {
    it(`${args.slice(0, 2).join(' ')} … ${args.includes('-') ? args[args.indexOf('-') - 1] : ''} -: says what it reads, and the first Ctrl-C exits 130`, async () => {
      const hint = `reading ${what} from stdin; end with Ctrl-D`;
      const r = await runCli([...args, '--no-color'], { env, tty: true, input: [{ after: hint, send: CTRL_C }, HOLD], timeoutMs: 15_000 });
      expect(plain(r.stdout)).toContain(`mailroom: ${hint}`);
      expect(plain(r.stdout)).toMatch(/^mailroom: interrupted/m);
      expect(r.code).toBe(130);
    });
  }
});

describe('Ctrl-C at a confirmation prompt', () => {
  it('keys delete: exit 130, the key kept', async () => {
    const call = client(sandbox);
    const key = (await call('POST', `/v1/workspaces/${sandbox.workspaceId}/api-keys`, { displayName: 'ctrl-c', role: 'API_USER' })).body.apiKey as { id: string };
    const r = await runCli(['keys', 'delete', key.id, '--no-color'], { env, tty: true, input: [{ after: 'Delete API key', send: CTRL_C }, HOLD], timeoutMs: 15_000 });
    expect(r.code).toBe(130);
    expect(plain(r.stdout)).toContain(`mailroom: interrupted: did not delete ${key.id}`);
    const keys = (await call('GET', `/v1/workspaces/${sandbox.workspaceId}/api-keys?limit=100`)).body.apiKeys.items as { id: string }[];
    expect(keys.map((k) => k.id)).toContain(key.id);
  });
});

describe('Ctrl-C while a request is in flight', () => {
  let server: Server;
  let baseUrl: string;
  let arrived: () => void;
  let requestArrived: Promise<void>;
  beforeAll(async () => {
    // An API that takes the request and never answers: the email may or may not have gone out.
    server = createServer((req: IncomingMessage) => {
      req.resume();
      req.on('end', () => arrived());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const slowEnv = () => ({ MAILROOM_BASE_URL: baseUrl, MAILROOM_API_KEY: 'sk_test_slowslowslowslowslow0001' });
  const untilArrived = () => {
    requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    return requestArrived;
  };

  it('send: exit 130, says the email may have been sent and how to retry with its idempotency key', async () => {
    const wait = untilArrived();
    const r = await runCli(['send', '--from', 'a@example.com', '--to', 'b@example.com', '--subject', 'Hi', '--html', '<p>x</p>', '--idempotency-key', 'k-ctrl-c-1', '--no-color'], {
      env: slowEnv(),
      tty: true,
      input: [{ after: wait, send: CTRL_C }, HOLD],
      timeoutMs: 15_000,
    });
    const out = plain(r.stdout);
    expect(out).toMatch(/^mailroom: interrupted/m);
    expect(out).toContain('the email may have been sent: to retry without sending it twice, run:');
    expect(out).toContain('--idempotency-key k-ctrl-c-1');
    expect(r.code).toBe(130);
  });

  it('check: exit 130', async () => {
    const wait = untilArrived();
    const r = await runCli(['check', '--no-color'], { env: slowEnv(), tty: true, input: [{ after: wait, send: CTRL_C }, HOLD], timeoutMs: 15_000 });
    expect(plain(r.stdout)).toMatch(/^mailroom: interrupted/m);
    expect(r.code).toBe(130);
  });
});

/** `^C`, as the terminal echoes it, on a line of its own: never sharing one with what follows. */
const echoAlone = (out: string) => {
  for (const line of out.split('\n')) if (line.includes('^C')) expect(line.replace(/\r/g, '')).toBe('^C');
};

describe('Ctrl-C stops the serving commands with 130 (SIGTERM stays 0, see their own tests)', () => {
  it('sandbox: saves, says it stopped, exits 130', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-int-'));
    try {
      const data = join(dir, 'state.json');
      const r = await runCli(['sandbox', '--port', '0', '--data', data, '--no-color'], { tty: true, input: [{ after: 'Press Ctrl-C to stop.', send: CTRL_C }, { after: /sandbox stopped/, send: '' }], timeoutMs: 20_000 });
      expect(r.code).toBe(130);
      expect(plain(r.stdout)).toMatch(/^sandbox stopped; state saved to /m);
      echoAlone(plain(r.stdout));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('webhooks listen: prints its summary, exits 130', async () => {
    const r = await runCli(['webhooks', 'listen', '--port', '0', '--token', 'wht_testtesttesttesttest', '--no-color'], { tty: true, input: [{ after: 'Ctrl-C to stop', send: CTRL_C }, { after: /Stopped: /, send: '' }], timeoutMs: 20_000 });
    expect(r.code).toBe(130);
    expect(plain(r.stdout)).toMatch(/^Stopped: 0 requests received$/m);
    echoAlone(plain(r.stdout));
  });

  it('webhooks replay: lets the delivery under way finish, exits 130 saying where to pick up', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-int-'));
    let arrived!: () => void;
    const first = new Promise<void>((resolve) => (arrived = resolve));
    // An app that takes half a second per delivery: Ctrl-C lands while the first one is under way.
    const app = createServer((req, res) => {
      req.resume();
      arrived();
      setTimeout(() => res.end('ok'), 500);
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    try {
      const journal = join(dir, 'deliveries.ndjson');
      const at = (i: number) => `2026-11-22T08:00:0${i}.000Z`;
      const line = (i: number) => JSON.stringify({ receivedAt: at(i), method: 'POST', path: '/in', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event: 'CONTACT_CREATED', createdAt: at(i), data: { contact: { email: `r${i}@example.com` } } }), status: 200, verified: true, event: 'CONTACT_CREATED' });
      writeFileSync(journal, `${[1, 2, 3, 4].map(line).join('\n')}\n`);
      const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}/in`;
      const r = await runCli(['webhooks', 'replay', '--journal', journal, '--forward-to', url, '--token', 'wht_testtesttesttesttest', '--no-color'], {
        tty: true,
        input: [{ after: first, send: CTRL_C }, HOLD],
        timeoutMs: 20_000,
      });
      const out = plain(r.stdout);
      expect(r.code).toBe(130);
      expect(out).toMatch(/^Replayed 1 of 4 deliveries to /m);
      expect(out).toMatch(/^mailroom: interrupted: replayed 1 of 4 deliveries$/m);
      // The rest by journal line: a time cut would repeat or drop deliveries whose bodies arrived out of order.
      expect(out).toContain(`  to replay the rest:\n    mailroom webhooks replay --journal ${journal} --forward-to ${url} --token '<your token>' --no-color --lines 2-4\n`);
      echoAlone(out);
    } finally {
      app.closeAllConnections();
      await new Promise((resolve) => app.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the ^C echo never shares a line with what follows', () => {
  it('stdin readers and requests in flight: "^C" alone, then "mailroom: interrupted"', async () => {
    const r = await runCli(['send', '--file', '-', '--dry-run', '--no-color'], { env, tty: true, input: [{ after: 'end with Ctrl-D', send: CTRL_C }, HOLD], timeoutMs: 15_000 });
    expect(r.code).toBe(130);
    echoAlone(plain(r.stdout));
    expect(plain(r.stdout)).toMatch(/^mailroom: interrupted/m);
  });
});
