import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { recordingProxy, type ForcedAnswer, type RecordingProxy } from '../helpers/recording-proxy.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { shellWords } from '../helpers/shell-words.js';

let sandbox: TestSandbox;
let env: Record<string, string>;
let proxy: RecordingProxy | undefined;

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
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

const raw = ['send', '--from', 'Ops <ops@example.com>', '--to', 'ada@example.com', '--subject', 'Hello', '--html', '<p>Hi Ada</p>'];
const quoted = "mailroom send --from 'Ops <ops@example.com>' --to ada@example.com --subject Hello --html '<p>Hi Ada</p>'";

describe('mailroom send: every failure after the request may have reached the API prints the retry command with the same key', () => {
  it.each([
    {
      name: 'a garbled answer (HTTZ)',
      forced: { garble: true } as ForcedAnswer,
      flags: [] as string[],
      code: 6,
      lines: (url: string) => [
        `mailroom: the answer from ${url} was not HTTP: Response does not match the HTTP/1.1 protocol (Expected HTTP/, RTSP/ or ICE/)`,
        '  check --base-url / MAILROOM_BASE_URL and your network or proxy (HTTPS_PROXY, NO_PROXY)',
        '  the email may have been sent: to retry without sending it twice, run:',
      ],
    },
    {
      name: 'a connection reset after the API took it',
      forced: { reset: true } as ForcedAnswer,
      flags: [] as string[],
      code: 6,
      lines: (url: string) => [
        `mailroom: lost the connection to ${url} before its answer: read ECONNRESET`,
        '  check --base-url / MAILROOM_BASE_URL and your network or proxy (HTTPS_PROXY, NO_PROXY)',
        '  the email may have been sent: to retry without sending it twice, run:',
      ],
    },
    {
      name: 'no answer within --timeout',
      forced: { stall: true } as ForcedAnswer,
      flags: ['--timeout', '300'],
      // The retry raises the timeout that ran out (twice it, at least the default: transport-hints.ts).
      rerun: ['--timeout', '30000'],
      code: 6,
      lines: (url: string) => [
        `mailroom: no answer from ${url} within 300 ms`,
        '  raise --timeout <ms> if the API is slow',
        '  the email may have been sent: to retry without sending it twice, run:',
      ],
    },
    {
      name: 'a 200 whose JSON is cut short',
      forced: { unparseable: true } as ForcedAnswer,
      flags: [] as string[],
      code: 1,
      lines: () => [
        'mailroom: unexpected send response from the API: its body is not JSON',
        '  the API answered 200, so the email was most likely accepted: to retry without sending it twice, run:',
      ],
    },
  ])('$name: exit $code, the exact lines; the printed command, run again, sends nothing twice', async ({ forced, flags, rerun, code, lines }) => {
    proxy = await recordingProxy(sandbox.baseUrl, (req) => (req.method === 'POST' ? forced : undefined));
    const r = await runInProcess([...raw, '--base-url', proxy.baseUrl, ...flags, '--max-retries', '0'], { env });
    const key = JSON.parse(proxy.seen[0]!.body).idempotencyKey as string;
    const command = `${quoted} --base-url ${proxy.baseUrl}${(rerun ?? flags).map((f) => ` ${f}`).join('')} --max-retries 0 --idempotency-key ${key}`;
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code, stdout: '', stderr: [...lines(proxy.baseUrl), `    ${command}`, ''].join('\n') });
    await proxy.close();
    const again = shellWords(command.replace(`--base-url ${proxy.baseUrl}`, `--base-url ${sandbox.baseUrl}`))!;
    const second = await runInProcess(again.slice(1), { env });
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    const inbox = await sandbox.emails();
    expect(inbox).toHaveLength(1);
    expect(JSON.parse(second.stdout)).toMatchObject({ id: inbox[0]!.id, idempotencyKey: key });
  });

  it('a garbled answer with retries left: sent again under the same key, one email, then the retry command', async () => {
    proxy = await recordingProxy(sandbox.baseUrl, (req) => (req.method === 'POST' ? { garble: true } : undefined));
    const r = await runInProcess([...raw, '--base-url', proxy.baseUrl, '--max-retries', '2'], { env });
    expect(r.code).toBe(6);
    const keys = proxy.seen.map((s) => JSON.parse(s.body).idempotencyKey as string);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(r.stderr).toContain(`  the email may have been sent: to retry without sending it twice, run:\n    ${quoted} --base-url ${proxy.baseUrl} --max-retries 2 --idempotency-key ${keys[0]}\n`);
    expect(await sandbox.emails()).toHaveLength(1);
  });
});

describe('mailroom sandbox emails: an answer cut off mid-body', () => {
  it('exit 6 with one line naming the sandbox URL, not an unexpected error from the HTTP library', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"items": [');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const r = await runInProcess(['sandbox', 'emails', '--base-url', url], { env: {} });
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
        code: 6,
        stdout: '',
        stderr: `mailroom: cannot reach a sandbox at ${url}: UND_ERR_SOCKET\n  start one with: mailroom sandbox\n`,
      });
    } finally {
      server.close();
    }
  });
});

describe('mailroom api POST: an answer lost after the request may have reached the API', () => {
  const email = { from: 'ops@example.com', to: 'ada@example.com', subject: 'Hello', html: '<p>Hi</p>' };

  it('says the request may have gone through; without an idempotencyKey in --data, says how to make a retry safe', async () => {
    proxy = await recordingProxy(sandbox.baseUrl, (req) => (req.method === 'POST' ? { garble: true } : undefined));
    const bare = await runInProcess(['api', 'POST', '/v1/emails', '--data', JSON.stringify(email), '--base-url', proxy.baseUrl], { env });
    expect(bare.code).toBe(6);
    expect(bare.stderr.split('\n').slice(1)).toEqual([
      '  check --base-url / MAILROOM_BASE_URL and your network or proxy (HTTPS_PROXY, NO_PROXY)',
      '  the request may have reached the API and been carried out: check before sending it again',
      '  an "idempotencyKey" in --data makes sending it again safe: the API sends the email at most once per key',
      '',
    ]);
    const keyed = await runInProcess(['api', 'POST', '/v1/emails', '--data', JSON.stringify({ ...email, idempotencyKey: 'order-9' }), '--base-url', proxy.baseUrl], { env });
    expect(keyed.code).toBe(6);
    expect(keyed.stderr).toContain('\n  the request may have reached the API: sending it again with the same --data is safe (its idempotencyKey)\n');
    await proxy.close();
    const again = await runInProcess(['api', 'POST', '/v1/emails', '--data', JSON.stringify({ ...email, idempotencyKey: 'order-9' })], { env });
    expect(again.code).toBe(0);
    expect((await sandbox.emails()).filter((e) => e.idempotencyKey === 'order-9')).toHaveLength(1);
  });

  it('a refused connection: nothing reached the API, no such line', async () => {
    const r = await runInProcess(['api', 'POST', '/v1/emails', '--data', JSON.stringify(email), '--base-url', 'http://127.0.0.1:9'], { env });
    expect(r.code).toBe(6);
    expect(r.stderr).not.toContain('may have reached');
  });
});
