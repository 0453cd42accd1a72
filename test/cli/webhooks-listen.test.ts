import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { startApp, type TestApp } from '../webhook/helpers/test-app.js';
import { runInProcess, startInProcess, type InProcessCommand } from '../helpers/context.js';

// `webhooks listen` in-process: its HTTP behaviour, output and argv checks. What only a process shows
// (SIGTERM, a closed stdout, a real terminal) is in test/e2e/webhooks-listen.test.ts.

const EVENTS = ['CONTACT_CREATED', 'CONTACT_UPDATED', 'CONTACT_UNSUBSCRIBED', 'CONTACT_RESUBSCRIBED', 'CONTACT_DELETED', 'WORKSPACE_TEAM_MEMBER_JOINED'] as const;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

const closeServer = (s: Server) => new Promise<void>((r) => s.close(() => r()));

describe('webhooks listen: sandbox deliveries for all six events', () => {
  let sandbox: TestSandbox;
  let app: TestApp;
  let listen: InProcessCommand | undefined;
  const token = 'wht_e2eListenToken7Hq2Lx9';
  const journal = join(mkdtempSync(join(tmpdir(), 'mailroom-listen-')), 'deliveries.ndjson');

  beforeAll(async () => {
    sandbox = await withSandbox();
    app = await startApp(token);
  });
  afterAll(async () => {
    await listen?.stop();
    await app.close();
    await sandbox.close();
  });

  it('receives, verifies, prints, journals and forwards byte for byte each event', async () => {
    const port = await freePort();
    const apiEnv = { MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_BASE_URL: sandbox.baseUrl };
    const created = await runInProcess(['webhooks', 'create', '--url', `http://127.0.0.1:${port}/hooks/mailroom`, '--event', EVENTS.join(','), '--token', token, '--json'], { env: apiEnv });
    expect(created.code, created.stderr).toBe(0);
    const webhook = JSON.parse(created.stdout) as { id: string };
    const running = startInProcess(['webhooks', 'listen', '--webhook', webhook.id, '--port', String(port), '--forward-to', app.url, '--journal', journal, '--json'], { env: apiEnv });
    listen = running;
    const ready = JSON.parse(await running.waitForLine((l) => l.includes('"ready"'))) as { ready: boolean; url: string };
    expect(ready).toEqual({ ready: true, url: `http://127.0.0.1:${port}`, forwardTo: app.url });
    expect(await running.waitForErrLine((l) => l.startsWith('Ready: '))).toContain(`Ready: listening on http://127.0.0.1:${port} (forwarding to ${app.url})`);

    const sent: string[] = [];
    for (const [i, event] of EVENTS.entries()) {
      const email = `person${i}@example.com`;
      const trigger = await runInProcess(['sandbox', 'trigger', event, '--email', email, '--json'], { env: apiEnv });
      expect(trigger.code, trigger.stderr).toBe(0);
      const envelope = JSON.parse(trigger.stdout) as { createdAt: string; data: unknown };
      sent.push(JSON.stringify(envelope));
      // One at a time, so the order the app sees is the order they were fired.
      const line = JSON.parse(await running.waitForLine((l) => l.includes(`"event":"${event}"`))) as Record<string, unknown>;
      expect(line).toMatchObject({ event, createdAt: envelope.createdAt, verified: true, data: envelope.data, forward: { url: app.url, status: 200 } });
      const who = event === 'WORKSPACE_TEAM_MEMBER_JOINED' ? (line.data as { user: { email: string } }).user : (line.data as { contact: { email: string } }).contact;
      expect(who.email).toBe(email);
    }

    expect(app.received.map((r) => r.body.toString())).toEqual(sent);
    for (const r of app.received) {
      expect(r.signatureValid).toBe(true);
      expect(r.path).toBe('/webhooks/mailroom');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['content-length']).toBe(String(r.body.length));
    }

    const deliveries = await sandbox.deliveries();
    expect(deliveries.map((d) => [d.event, d.statusCode])).toEqual(EVENTS.map((e) => [e, 200]));

    const stopped = await running.stop();
    // Stopped by Ctrl-C (the context's signal in-process): 130, as every command; SIGTERM exits 0 (e2e).
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain('Stopped: 6 requests received');
    expect(stopped.stderr).not.toContain('warning');
    const text = readFileSync(journal, 'utf8');
    const entries = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries.map((e) => [e.event, e.status, e.verified, e.path, e.body])).toEqual(EVENTS.map((e, i) => [e, 200, true, '/hooks/mailroom', sent[i]]));
    for (const e of entries) expect((e.headers as Record<string, string>)['x-smashsend-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(text + stopped.stdout + stopped.stderr).not.toContain(token);
  });

  it('sandbox trigger takes the event name in any case, as --event and webhooks sample do', async () => {
    const trigger = await runInProcess(['sandbox', 'trigger', 'contact_updated', '--json'], { env: { MAILROOM_BASE_URL: sandbox.baseUrl } });
    expect(trigger.code, trigger.stderr).toBe(0);
    expect((JSON.parse(trigger.stdout) as { event: string }).event).toBe('CONTACT_UPDATED');
  });

  it('warns when the webhook delivers to another port than the listener, and exits 4 for an unknown webhook', async () => {
    const apiEnv = { MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_BASE_URL: sandbox.baseUrl };
    const created = await runInProcess(['webhooks', 'create', '--url', 'http://127.0.0.1:9/elsewhere', '--event', 'CONTACT_CREATED', '--json'], { env: apiEnv });
    const { id } = JSON.parse(created.stdout) as { id: string };
    const other = startInProcess(['webhooks', 'listen', '--webhook', id, '--port', '0', '--json'], { env: apiEnv });
    const { url } = JSON.parse(await other.waitForLine((l) => l.includes('"ready"'))) as { url: string };
    const stopped = await other.stop();
    expect(stopped.stderr).toContain(`mailroom: warning: webhook ${id} delivers to http://127.0.0.1:9/elsewhere, but this listener is on port ${new URL(url).port}`);
    const unknown = await runInProcess(['webhooks', 'listen', '--webhook', 'wh_doesNotExist1', '--port', '0'], { env: apiEnv });
    expect(unknown.code).toBe(4);
  });
});

describe('webhooks listen: refusals, filters and forwarding failures', () => {
  let app: TestApp;
  let listen: InProcessCommand;
  const token = 'wht_e2eRefusalToken3Kd8';
  const sign = (body: string, key = token) => createHmac('sha256', key).update(body).digest('hex');
  const valid = JSON.stringify({ event: 'CONTACT_CREATED', createdAt: '2026-11-22T08:00:00.000Z', data: { contact: { id: 'ctc_1', email: 'ada@example.com' } } });

  beforeAll(async () => {
    app = await startApp(token);
    listen = startInProcess(['webhooks', 'listen', '--port', '0', '--max-body', '2048', '--forward-to', app.url, '--events', 'CONTACT_CREATED,CONTACT_DELETED', '--json'], {
      env: { MAILROOM_WEBHOOK_TOKEN: token },
    });
  });
  afterAll(async () => {
    await listen.stop();
    await app.close();
  });

  async function post(url: string, body: string, headers: Record<string, string>) {
    const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
    return { status: res.status, body: (await res.json()) as { message?: string } };
  }

  it('refuses tampered, wrong-token, unsigned and oversized deliveries (401/401/401/413), saying why, and keeps serving', async () => {
    const { url } = JSON.parse(await listen.waitForLine((l) => l.includes('"ready"'))) as { url: string };
    const tampered = await post(`${url}/a`, valid.replace('ada@', 'eve@'), { 'X-Smashsend-Signature': sign(valid) });
    expect(tampered).toEqual({ status: 401, body: { statusCode: 401, error: 'Unauthorized', message: 'signature does not match: wrong token, or the body changed after it was signed' } });
    const wrongToken = await post(`${url}/b`, valid, { 'X-Smashsend-Signature': sign(valid, 'wht_notTheRightOne') });
    expect(wrongToken.status).toBe(401);
    expect(wrongToken.body.message).toContain('wrong token');
    const unsigned = await post(`${url}/c`, valid, {});
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.message).toBe('no signature header: expected X-Smashsend-Signature (or any X-*-Signature)');
    const big = JSON.stringify({ event: 'CONTACT_CREATED', createdAt: '2026-11-22T08:00:00.000Z', data: { pad: 'x'.repeat(4096) } });
    const oversized = await post(`${url}/d`, big, { 'X-Smashsend-Signature': sign(big) });
    expect(oversized.status).toBe(413);
    expect(oversized.body.message).toBe('the body is over the 2048-byte limit (--max-body)');
    const pretty = JSON.stringify(JSON.parse(valid), null, 2);
    const reserialised = await post(`${url}/e`, pretty, { 'X-Smashsend-Signature': sign(valid) });
    expect(reserialised.status).toBe(401);
    expect(reserialised.body.message).toContain('the body was re-serialised');

    const ok = await post(`${url}/f`, valid, { 'X-Smashsend-Signature': sign(valid) });
    expect(ok.status).toBe(200);
    const okLine = await listen.waitForLine((l) => l.includes('"event":"CONTACT_CREATED"'));
    expect(JSON.parse(okLine)).toMatchObject({ verified: true, forward: { status: 200 } });

    const refusals = listen.lines.filter((l) => l.includes('"verified":false')).map((l) => JSON.parse(l) as { status: number; path: string; reason: string });
    expect(refusals.map((r) => [r.status, r.path])).toEqual([
      [401, '/a'],
      [401, '/b'],
      [401, '/c'],
      [413, '/d'],
      [401, '/e'],
    ]);
    expect(refusals[2]!.reason).toContain('no signature header');
    // Only the valid one reached the app.
    expect(app.received.map((r) => r.path)).toEqual(['/webhooks/mailroom']);
  });

  it('answers events outside --events with 200 without printing or forwarding them; answers TESTING_CONNECTION without forwarding', async () => {
    const { url } = JSON.parse(await listen.waitForLine((l) => l.includes('"ready"'))) as { url: string };
    const before = app.received.length;
    const updated = JSON.stringify({ event: 'CONTACT_UPDATED', createdAt: '2026-11-22T08:00:01.000Z', data: { contact: { email: 'x@example.com' } } });
    expect((await post(url, updated, { 'X-Smashsend-Signature': sign(updated) })).status).toBe(200);
    const test = JSON.stringify({ event: 'TESTING_CONNECTION', payload: {}, timestamp: 1763798400000, version: 1 });
    expect((await post(url, test, { 'X-Smashsend-Signature': sign(test) })).status).toBe(200);
    const deleted = JSON.stringify({ event: 'CONTACT_DELETED', createdAt: '2026-11-22T08:00:02.000Z', data: { contact: { email: 'y@example.com' } } });
    expect((await post(url, deleted, { 'X-Smashsend-Signature': sign(deleted) })).status).toBe(200);
    await listen.waitForLine((l) => l.includes('"event":"CONTACT_DELETED"'));
    expect(listen.lines.some((l) => l.includes('CONTACT_UPDATED'))).toBe(false);
    expect(listen.lines.some((l) => l.includes('"event":"TESTING_CONNECTION"'))).toBe(true);
    expect(app.received.slice(before).map((r) => r.body.toString())).toEqual([deleted]);
  });

  it('reports an app that is down in the printed line, and keeps listening', async () => {
    await app.close();
    const { url } = JSON.parse(await listen.waitForLine((l) => l.includes('"ready"'))) as { url: string };
    const body = JSON.stringify({ event: 'CONTACT_CREATED', createdAt: '2026-11-22T08:00:03.000Z', data: { contact: { email: 'down@example.com' } } });
    expect((await post(url, body, { 'X-Smashsend-Signature': sign(body) })).status).toBe(200);
    const line = JSON.parse(await listen.waitForLine((l) => l.includes('down@example.com'))) as { forward: { error: string; status?: number } };
    expect(line.forward.status).toBeUndefined();
    expect(line.forward.error).toMatch(/^connection refused by 127\.0\.0\.1:\d+ \(is your app running\?\)$/);
    const stopped = await listen.stop();
    expect(stopped.code).toBe(130);
    expect(stopped.stdout + stopped.stderr).not.toContain(token);
  });
});

describe('webhooks listen: bad input', () => {
  const cases: [string, string[], RegExp][] = [
    ['no token at all', ['--port', '0'], /signing token is needed to verify deliveries: --token-file <path>, --webhook <wh_id>, MAILROOM_WEBHOOK_TOKEN, or --token <wht_…>/],
    ['both --token and --webhook', ['--token', 'wht_abcdefgh', '--webhook', 'wh_abc'], /--token or --webhook, not both/],
    ['a --webhook that is not a wh_ id', ['--webhook', 'abc'], /--webhook: "abc" is not a webhook id/],
    ['an unknown event in --events', ['--token', 'wht_abcdefgh', '--events', 'CONTACT_CREATED,NOPE'], /unknown event NOPE; valid: CONTACT_CREATED, /],
    ['a --forward-to that is not http(s)', ['--token', 'wht_abcdefgh', '--forward-to', 'ftp://example.com/x'], /--forward-to: .* must be an http/],
    ['a --forward-to that is the listener itself', ['--token', 'wht_abcdefgh', '--port', '4343', '--forward-to', 'http://localhost:4343/hooks'], /--forward-to http:\/\/localhost:4343\/hooks is this listener \(port 4343\)/],
    ['a --max-body of 0', ['--token', 'wht_abcdefgh', '--max-body', '0'], /--max-body must be between 1/],
    ['a --journal it cannot write', ['--token', 'wht_abcdefgh', '--journal', '/nonexistent-dir-for-mailroom/j.ndjson'], /--journal: cannot write .*: no such directory/],
    ['a port out of range', ['--token', 'wht_abcdefgh', '--port', '70000'], /--port must be between 0 and 65535/],
    ['a --forward-queue of 0', ['--token', 'wht_abcdefgh', '--forward-queue', '0'], /--forward-queue must be between 1/],
    ['a --stop-timeout that is not a number', ['--token', 'wht_abcdefgh', '--stop-timeout', 'soon'], /--stop-timeout must be a whole number/],
    ['a --max-age that is not a duration', ['--token', 'wht_abcdefgh', '--max-age', '5 minutes'], /--max-age: "5 minutes" is not a duration \(e\.g\. 90s, 5m, 1h, 2d\)/],
  ];
  it.each(cases)('%s: exit 2, one line, nothing listening', async (_name, args, message) => {
    const res = await runInProcess(['webhooks', 'listen', ...args]);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr.trim().split('\n')[0]).toMatch(message);
    expect(res.stderr).not.toContain('Ready');
  });

  it('a port already in use: exit 2 with what to do', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
    try {
      const res = await runInProcess(['webhooks', 'listen', '--token', 'wht_abcdefgh', '--port', String((busy.address() as AddressInfo).port)]);
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/is already in use\n {2}pick another port, or --port 0 for a free one/);
    } finally {
      await closeServer(busy);
    }
  });
});
