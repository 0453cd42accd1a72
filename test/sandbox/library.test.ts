import { afterEach, describe, expect, test } from 'vitest';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectSandbox, SIGNATURE_HEADER, startSandbox, type Sandbox } from '../../src/sandbox/library.js';
import { sign } from '../../src/webhook/signature.js';
import { Agent, getGlobalDispatcher, setGlobalDispatcher } from 'undici';

const open: (Sandbox | Server)[] = [];
afterEach(async () => {
  for (const x of open.splice(0)) await ('baseUrl' in x ? x.close() : new Promise((r) => x.close(r)));
});

async function sandbox(options: Parameters<typeof startSandbox>[0] = {}): Promise<Sandbox> {
  const sb = await startSandbox(options);
  open.push(sb);
  return sb;
}

async function send(sb: Sandbox, body: unknown, path = '/v1/emails') {
  const res = await fetch(`${sb.baseUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${sb.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver answering `status`; `received` lists what it got. */
async function receiver(status = 200): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.statusCode = status;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/smashsend`, received };
}

const raw = { from: 'shop@example.com', to: 'ada@customer.test', subject: 'Your receipt', html: '<p>Caf&eacute; &amp; more</p>' };

describe("startSandbox from 'mailroom-cli/sandbox'", () => {
  test('starts on a free loopback port with a working key; emails() returns what was caught, typed', async () => {
    const sb = await sandbox();
    expect(sb.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Number(new URL(sb.baseUrl).port)).toBeGreaterThan(0);
    const check = await fetch(`${sb.baseUrl}/v1/api-keys/check`, { headers: { authorization: `Bearer ${sb.apiKey}` } });
    expect(check.status).toBe(200);
    expect(sb.workspaceId).toMatch(/^wrk_/);

    const sent = await send(sb, raw);
    expect(sent.status).toBe(200);
    const emails = await sb.emails();
    expect(emails).toHaveLength(1);
    expect(emails[0]).toMatchObject({ id: (sent.body.email as { id: string }).id, status: 'SENT', type: 'raw', to: 'ada@customer.test', from: 'shop@example.com', subject: 'Your receipt', html: raw.html, text: 'Café & more' });
  });

  test('two sandboxes at once each get their own port, key and workspace', async () => {
    const [a, b] = await Promise.all([sandbox(), sandbox()]);
    expect(a.baseUrl).not.toBe(b.baseUrl);
    expect(a.apiKey).not.toBe(b.apiKey);
    expect(a.workspaceId).not.toBe(b.workspaceId);
  });

  test('the config of `mailroom sandbox --config`: verified senders, templates, limits, faults; `config` overrides the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-sblib-'));
    const file = join(dir, 'sandbox.json');
    writeFileSync(file, JSON.stringify({ verifiedEmails: ['ops@acme.test'], verifiedDomains: ['acme.test'], monthlyLimit: 2, templates: { receipt: { from: 'billing@acme.test', subject: 'Receipt {{n}}', html: '<p>Total {{total}}</p>' } } }));
    const sb = await sandbox({ configFile: file, config: { verifiedDomains: ['shop.test'] } });

    const refused = await send(sb, { ...raw, from: 'x@example.com' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ allowedEmails: ['ops@acme.test'], allowedDomains: ['shop.test'] });
    expect((await send(sb, { ...raw, from: 'ops@acme.test' })).status).toBe(200);
    expect((await send(sb, { template: 'receipt', to: 'bo@customer.test', variables: { n: 7, total: '€5 <b>' } })).status).toBe(200);
    const templated = (await sb.emails())[1]!;
    expect(templated).toMatchObject({ type: 'templated', template: 'receipt', from: 'billing@acme.test', subject: 'Receipt 7', html: '<p>Total €5 &lt;b&gt;</p>', text: 'Total €5 <b>' });
    expect((await send(sb, { ...raw, from: 'ops@acme.test' })).status).toBe(403);

    const faulty = await sandbox({ config: { faults: { errorRate: 1 } } });
    expect((await send(faulty, raw)).status).toBe(503);
    const limited = await sandbox({ config: { rateLimit: 1 } });
    expect((await send(limited, raw)).status).toBe(200);
    const second = await fetch(`${limited.baseUrl}/v1/emails`, { method: 'POST', headers: { authorization: `Bearer ${limited.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(raw) });
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('1');
  });

  test('a bad config rejects with one line naming the field, and nothing listens', async () => {
    await expect(startSandbox({ config: { rateLimit: -1 } })).rejects.toThrow(/^sandbox config: rateLimit /);
    await expect(startSandbox({ config: { webhooks: [{ url: 'ftp://x.test', events: ['CONTACT_CREATED'] }] } })).rejects.toThrow(/^sandbox config: webhooks\.0\.url /);
    await expect(startSandbox({ configFile: '/nonexistent/sandbox.json' })).rejects.toThrow(/^configFile: cannot read \/nonexistent\/sandbox.json: no such file/);
  });

  test('a misspelt or mistyped option rejects with one line naming it, in the sandbox\'s words, and nothing listens', async () => {
    const refusal = async (options: object) => {
      const err = (await startSandbox(options as never).then(
        async (sb) => {
          await sb.close();
          return undefined;
        },
        (e: unknown) => e,
      )) as Error | undefined;
      expect(err?.name, JSON.stringify(options)).toBe('SandboxConfigError');
      return err!.message;
    };
    // Ignored, these would start a sandbox other than the test asked for (another key, no config).
    expect(await refusal({ apikey: 'sk_test_12345678' })).toBe('startSandbox: unknown option apikey (known: port, host, apiKey, config, configFile, log)');
    expect(await refusal({ config_file: 'sandbox.json' })).toBe('startSandbox: unknown option config_file (known: port, host, apiKey, config, configFile, log)');
    expect(await refusal({ port: '3000' })).toBe('startSandbox: port must be a whole number from 0 to 65535, got "3000"');
    expect(await refusal({ port: 70000 })).toBe('startSandbox: port must be a whole number from 0 to 65535, got 70000');
    expect(await refusal({ host: '' })).toBe('startSandbox: host must be a host name or address, got ""');
    expect(await refusal({ log: 'stderr' })).toBe('startSandbox: log must be a function (line: string) => void, got "stderr"');
    expect(await refusal({ config: 'sandbox.json' })).toBe('startSandbox: config must be an object of settings (a file goes in configFile), got "sandbox.json"');
    expect(await refusal({ configFile: 42 })).toBe('startSandbox: configFile must be a path, got 42');
  });

  test('after close(), every member rejects saying the sandbox is closed, in its own words (close() again is fine)', async () => {
    const sb = await startSandbox();
    await sb.close();
    await sb.close();
    const closed = 'mailroom sandbox: this sandbox is closed (close() was called); start another with startSandbox()';
    await expect(sb.emails()).rejects.toThrow(closed);
    await expect(sb.deliveries()).rejects.toThrow(closed);
    await expect(sb.waitForEmail({ timeoutMs: 50 })).rejects.toThrow(closed);
    await expect(sb.waitForDeliveries(1, { timeoutMs: 50 })).rejects.toThrow(closed);
    await expect(sb.waitForIdle({ timeoutMs: 50 })).rejects.toThrow(closed);
    await expect(sb.reset()).rejects.toThrow(closed);
    await expect(sb.trigger('CONTACT_CREATED', { email: 'ada@example.com' })).rejects.toThrow(closed);
    await expect(sb.workspace({ name: 'late' })).rejects.toThrow(closed);
  });

  test('connectSandbox to a sandbox that is not running: each member rejects naming the URL and why, not "fetch failed"', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const gone = connectSandbox(`http://127.0.0.1:${port}`);
    const said = `mailroom sandbox: cannot reach the sandbox at http://127.0.0.1:${port} (ECONNREFUSED): is it running?`;
    await expect(gone.emails()).rejects.toThrow(said);
    await expect(gone.waitForEmail({ timeoutMs: 50 })).rejects.toThrow(said);
    await expect(gone.workspace({ name: 'w' })).rejects.toThrow(said);
  });

  test("connectSandbox's long polls are not cut short by the process's HTTP timeouts (fetch's is 300 s; a wait may last 600 s)", async () => {
    const sb = await sandbox();
    // The app under test (or Node's own default, at 300 s) may set a global dispatcher whose
    // timeouts are shorter than a wait: the sandbox's answer comes only when the email does.
    const before = getGlobalDispatcher();
    setGlobalDispatcher(new Agent({ headersTimeout: 300, bodyTimeout: 300 }));
    try {
      const waiting = connectSandbox(sb.baseUrl).waitForEmail({ to: 'late@customer.test', timeoutMs: 5000 });
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect((await send(sb, { ...raw, to: 'late@customer.test' })).status).toBe(200);
      expect((await waiting).to).toBe('late@customer.test');
    } finally {
      setGlobalDispatcher(before);
    }
  });

  test("webhooks from the config get signed deliveries; deliveries() has the body, the signature header's value and the parsed payload", async () => {
    const hook = await receiver();
    const token = 'wht_test_secret_123';
    const sb = await sandbox({ config: { webhooks: [{ url: hook.url, events: ['CONTACT_CREATED'], token }] } });
    await send(sb, raw);
    const [delivery] = await sb.waitForDeliveries(1);
    expect(delivery).toMatchObject({ event: 'CONTACT_CREATED', url: hook.url, attempt: 1, statusCode: 200 });
    expect(delivery!.error).toBeUndefined();
    expect(delivery!.signature).toBe(sign(token, delivery!.body));
    expect(delivery!.payload).toEqual(JSON.parse(delivery!.body));
    expect(delivery!.payload.data).toMatchObject({ contact: { email: 'ada@customer.test', workspaceId: sb.workspaceId } });
    // What the receiver got is exactly that.
    expect(hook.received).toHaveLength(1);
    expect(hook.received[0]!.body).toBe(delivery!.body);
    expect(hook.received[0]!.headers[SIGNATURE_HEADER]).toBe(delivery!.signature);
  });

  test('a failing receiver: every attempt is recorded, with its error and the time of the next', async () => {
    const hook = await receiver(500);
    const sb = await sandbox({ config: { webhooks: [{ url: hook.url, events: ['CONTACT_DELETED'] }], deliveries: { retryDelaysMs: [20] } } });
    const envelope = await sb.trigger('CONTACT_DELETED', { email: 'gone@customer.test' });
    expect(envelope).toMatchObject({ event: 'CONTACT_DELETED', data: { contact: { email: 'gone@customer.test' } } });
    const attempts = await sb.waitForDeliveries(2);
    expect(attempts.map((d) => [d.attempt, d.statusCode, d.error])).toEqual([
      [1, 500, 'receiver answered 500'],
      [2, 500, 'receiver answered 500'],
    ]);
    expect(attempts[0]!.nextRetryAt).toEqual(expect.any(String));
    expect(attempts[1]!.nextRetryAt).toBeUndefined();
    expect(attempts[0]!.payload).toEqual(envelope);
  });

  test('waitForDeliveries rejects after its time limit with what it waited for', async () => {
    const sb = await sandbox();
    await expect(sb.waitForDeliveries(1, { timeoutMs: 50 })).rejects.toThrow('mailroom sandbox: 1 delivery was not recorded within 50 ms');
  });

  test('waitForIdle() resolves to every attempt once none is queued, in flight or waiting for its retry', async () => {
    const hook = await receiver(500);
    const sb = await sandbox({ config: { webhooks: [{ url: hook.url, events: ['CONTACT_DELETED'] }], deliveries: { retryDelaysMs: [20, 20] } } });
    await sb.trigger('CONTACT_DELETED');
    const attempts = await sb.waitForIdle();
    expect(attempts.map((d) => [d.attempt, d.statusCode])).toEqual([
      [1, 500],
      [2, 500],
      [3, 500],
    ]);
    expect(hook.received).toHaveLength(3);
    // Nothing caused since: idle at once, the same attempts.
    expect(await sb.waitForIdle()).toEqual(attempts);
  });

  test('waitForIdle() rejects after its time limit while a delivery is still on its way', async () => {
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const sb = await sandbox({ config: { webhooks: [{ url, events: ['CONTACT_DELETED'] }] } });
    await sb.trigger('CONTACT_DELETED');
    await expect(sb.waitForIdle({ timeoutMs: 50 })).rejects.toThrow('mailroom sandbox: deliveries were still pending after 50 ms');
    await sb.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test('reset() empties emails and deliveries; the key and webhooks stay', async () => {
    const hook = await receiver();
    const sb = await sandbox({ config: { webhooks: [{ url: hook.url, events: ['CONTACT_CREATED'] }] } });
    await send(sb, raw);
    await sb.waitForDeliveries(1);
    await sb.reset();
    expect(await sb.emails()).toEqual([]);
    expect(await sb.deliveries()).toEqual([]);
    expect((await send(sb, raw)).status).toBe(200);
    expect(await sb.waitForDeliveries(1)).toHaveLength(1);
  });

  test('reset() lets a delivery already on its way reach the receiver first; none is recorded after it', async () => {
    const hook = await receiver();
    const sb = await sandbox({ config: { webhooks: [{ url: hook.url, events: ['CONTACT_CREATED'] }] } });
    expect((await send(sb, raw)).status).toBe(200);
    // No wait for the delivery: the next test's reset comes straight after the send.
    await sb.reset();
    expect(hook.received.map((r) => JSON.parse(r.body).event)).toEqual(['CONTACT_CREATED']);
    expect(await sb.deliveries()).toEqual([]);
    expect(await sb.emails()).toEqual([]);
  });

  test('close() frees the port and leaves no handle or timer behind, even with retries, schedules and slow answers pending', async () => {
    // What keeps a test runner's process alive: listening and connected sockets, timers.
    const count = (kind: string) => process.getActiveResourcesInfo().filter((r) => r === kind).length;
    const handles = () => ({ servers: count('TCPServerWrap'), sockets: count('TCPSocketWrap') });
    // Closed handles leave the list in the event loop's close phase, which follows the check phase:
    // a second setImmediate runs after it (here, after what the previous test closed).
    const loopTurn = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
    await loopTurn();
    const before = handles();
    const hook = await receiver(500);
    const sb = await startSandbox({ config: { webhooks: [{ url: hook.url, events: ['CONTACT_CREATED'] }], faults: { latencyMs: 10_000 } } });
    const port = Number(new URL(sb.baseUrl).port);
    const sendAt = new Date(Date.now() + 3_600_000).toISOString();
    // Scheduled an hour ahead, and answered after 10 s: still waiting when the sandbox closes.
    const slow = fetch(`${sb.baseUrl}/v1/emails`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sb.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...raw, sendAt }),
    }).catch((err: Error) => err);
    await sb.waitForDeliveries(1); // the delivery failed: its retry is pending
    expect((await sb.emails())[0]!.status).toBe('SCHEDULED');
    const timersWhileRunning = count('Timeout');
    await sb.close();
    // The slow answer's 10 s delay (the one timer that holds a process) is gone with the sandbox.
    expect(count('Timeout')).toBeLessThan(timersWhileRunning);
    expect(await slow).toBeInstanceOf(Error);
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.on('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });
    expect(answer).toBe('ECONNREFUSED');
    const server = open.pop() as Server;
    await new Promise((resolve) => server.close(resolve));
    await loopTurn();
    expect(handles()).toEqual(before);
  });
});
