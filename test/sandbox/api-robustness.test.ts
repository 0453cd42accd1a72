import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SandboxConfigError, startSandbox } from '../../src/sandbox/index.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

const raw = (over: Record<string, unknown> = {}) => ({ from: 'ops@example.com', to: 'ada@customer.test', subject: 'Hi', html: '<p>Hi</p>', ...over });

/** One request on a fresh connection; resolves with the status or the socket error's code. */
function rawRequest(base: string, path: string, body: string, headers: Record<string, string>): Promise<{ status?: number; error?: string; text?: string }> {
  return new Promise((resolve) => {
    const req = httpRequest(`${base}${path}`, { method: 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode, text }));
      res.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end(body);
  });
}

describe('bad input never crashes the server', () => {
  let sb: TestSandbox;
  let call: ReturnType<typeof client>;
  beforeAll(async () => {
    sb = await withSandbox();
    call = client(sb);
  });
  afterAll(() => sb.close());

  test('malformed JSON answers 400 with the spec body', async () => {
    const res = await call('POST', '/v1/emails', undefined, { raw: '{"from": "a@example.com",' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining('Malformed JSON'), docsUrl: expect.any(String) });
    const keys = await call('POST', `/v1/workspaces/${sb.workspaceId}/api-keys`, undefined, { raw: 'nope' });
    expect(keys.body).toEqual({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining('Malformed JSON') });
  });

  test('a wrong content type answers 415 with the spec body', async () => {
    const res = await call('POST', '/v1/emails', undefined, { raw: JSON.stringify(raw()), headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ statusCode: 415, error: 'Unsupported Media Type', message: expect.stringContaining('application/json') });
  });

  test('wrong types and unknown fields answer 400 naming the field', async () => {
    const types = await call('POST', '/v1/emails', raw({ settings: { trackClicks: 'yes' } }));
    expect(types.body).toMatchObject({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining('settings.trackClicks') });
    const unknown = await call('POST', '/v1/webhooks', { url: 'http://x.test/', events: ['CONTACT_CREATED'], secret: 'x' });
    expect(unknown.body).toMatchObject({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining('secret') });
  });

  test('an oversized body answers 413: over 1 MiB for a single send, over 10 MiB for a batch', async () => {
    const single = await call('POST', '/v1/emails', raw({ html: 'x'.repeat(1024 * 1024) }));
    expect(single.status).toBe(413);
    expect(single.body).toEqual({ statusCode: 413, error: 'Payload Too Large', message: expect.stringContaining('1048576') });
    const bigButAllowedBatch = await call('POST', '/v1/emails/batch', { emails: [raw({ html: 'x'.repeat(2 * 1024 * 1024) })] });
    expect(bigButAllowedBatch.status).toBe(200);
    const tooBigBatch = await call('POST', '/v1/emails/batch', { emails: [raw({ html: 'x'.repeat(11 * 1024 * 1024) })] });
    expect(tooBigBatch.status).toBe(413);
    expect(tooBigBatch.body.message).toContain('10485760');
  });

  test('unknown routes answer 404 with the spec body', async () => {
    const res = await call('GET', '/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'No route GET /v1/nothing-here' });
    expect((await call('PUT', '/v1/emails', raw())).status).toBe(404);
  });

  test('a request without Content-Type or body, a lying Content-Length: answers, then keeps serving', async () => {
    const nobody = await call('POST', '/v1/emails');
    expect(nobody.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    const lying = await rawRequest(sb.baseUrl, '/v1/emails', '{}', { 'content-type': 'application/json', 'content-length': '1', authorization: `Bearer ${sb.apiKey}` });
    expect(lying.status).toBe(400);
    expect(JSON.parse(lying.text!)).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect((await call('POST', '/v1/emails', raw())).status).toBe(200);
  });

  test('odd JSON bodies (null, scalars, arrays, __proto__ keys, deep nesting) get error bodies, never a crash', async () => {
    const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
    const bodies = [
      'null',
      '"text"',
      '42',
      '[]',
      deep,
      '{"__proto__": {"admin": true}, "from": "a@example.com", "to": "b@c.test", "subject": "s", "html": "h"}',
      '{"template": "welcome", "to": "b@c.test", "variables": {"__proto__": null, "constructor": "x"}}',
    ];
    for (const path of ['/v1/emails', '/v1/emails/batch', '/v1/webhooks', `/v1/workspaces/${sb.workspaceId}/api-keys`, '/_sandbox/events']) {
      for (const body of bodies) {
        const res = await call('POST', path, undefined, { raw: body });
        expect(res.status, `${path} ${body.slice(0, 40)}`).toBeLessThan(500);
        // Variables named __proto__ or constructor are plain data: that templated send may succeed.
        if (res.status !== 200) expect(res.body).toMatchObject({ statusCode: res.status, error: expect.any(String), message: expect.any(String) });
      }
    }
    const batch = await call('POST', '/v1/emails/batch', undefined, { raw: `{"emails": [null, 1, "x", [], ${deep}]}` });
    expect(batch.status).toBe(200);
    expect(batch.body.emails.failed.map((f: { index: number; statusCode: number }) => [f.index, f.statusCode])).toEqual([
      [0, 400],
      [1, 400],
      [2, 400],
      [3, 400],
      [4, 400],
    ]);
    expect((await call('GET', '/v1/api-keys/check')).status).toBe(200);
  });

  test('one caught email is readable as JSON by id', async () => {
    const sent = await call('POST', '/v1/emails', raw({ subject: 'by id' }));
    const one = await call('GET', `/_sandbox/emails/${sent.body.email.id}`);
    expect(one.status).toBe(200);
    expect(one.body.email).toMatchObject({ id: sent.body.email.id, subject: 'by id', text: 'Hi' });
    expect((await call('GET', '/_sandbox/emails/trs_missing')).body).toEqual({ statusCode: 404, error: 'Not Found', message: 'Email trs_missing not found' });
  });

  test('the HTML inbox escapes everything and never runs an email’s scripts', async () => {
    const evil = '<script>alert(1)</script><img src=x onerror=alert(2)>';
    const sent = await call('POST', '/v1/emails', raw({ subject: `<script>alert("s")</script>`, html: evil }));
    const list = await fetch(`${sb.baseUrl}/`);
    expect(list.headers.get('content-security-policy')).toContain("default-src 'none'");
    const listHtml = await list.text();
    expect(listHtml).not.toContain('<script>');
    expect(listHtml).toContain('&lt;script&gt;alert(&quot;s&quot;)&lt;/script&gt;');
    const one = await fetch(`${sb.baseUrl}/inbox/${sent.body.email.id}`);
    const html = await one.text();
    expect(one.headers.get('content-type')).toContain('text/html');
    expect(one.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('alert(1)');
    // The email's own HTML only in a frame sandboxed without allow-scripts, served under a policy with no script source.
    const frame = /<iframe [^>]*src="([^"]+)" sandbox="([^"]*)"/.exec(html)!;
    expect(frame[2]).not.toContain('allow-scripts');
    const body = await fetch(`${sb.baseUrl}${frame[1]}`);
    expect(await body.text()).toBe(evil);
    expect(body.headers.get('content-security-policy')).toMatch(/^default-src 'none'; .*; sandbox allow-popups allow-popups-to-escape-sandbox$/);
    expect(body.headers.get('content-security-policy')).not.toMatch(/script-src|allow-scripts/);
  });
});

describe('fault injection (on /v1 only)', () => {
  test('errorRate 1 answers 503 with the spec body; /_sandbox still works', async () => {
    const sb = await withSandbox({ config: { faults: { errorRate: 1 } } });
    try {
      const call = client(sb);
      const res = await call('POST', '/v1/emails', raw());
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ statusCode: 503, error: 'Service Unavailable', message: expect.stringContaining('fault') });
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      expect(await sb.emails()).toEqual([]);
    } finally {
      await sb.close();
    }
  });

  test('dropRate 1 closes the connection before any work', async () => {
    const sb = await withSandbox({ config: { faults: { dropRate: 1 } } });
    try {
      const res = await rawRequest(sb.baseUrl, '/v1/emails', JSON.stringify(raw()), { 'content-type': 'application/json', authorization: `Bearer ${sb.apiKey}` });
      expect(res.status).toBeUndefined();
      expect(res.error).toMatch(/ECONNRESET|socket hang up/);
      expect(await sb.emails()).toEqual([]);
    } finally {
      await sb.close();
    }
  });

  test('lostRate 1 does the work but never answers: the email is in the inbox', async () => {
    const sb = await withSandbox({ config: { faults: { lostRate: 1 } } });
    try {
      const res = await rawRequest(sb.baseUrl, '/v1/emails', JSON.stringify(raw({ idempotencyKey: 'lost-1' })), {
        'content-type': 'application/json',
        authorization: `Bearer ${sb.apiKey}`,
      });
      expect(res.status).toBeUndefined();
      expect(res.error).toMatch(/ECONNRESET|socket hang up/);
      const inbox = await sb.emails();
      expect(inbox).toHaveLength(1);
      expect(inbox[0]!.idempotencyKey).toBe('lost-1');
    } finally {
      await sb.close();
    }
  });

  test('latencyMs delays the answer after the work is done: a client that gives up first still had its email accepted (timed out but sent)', async () => {
    const sb = await withSandbox({ config: { faults: { latencyMs: 60_000 } } });
    try {
      const body = JSON.stringify({ from: 'a@example.com', to: 'slow@x.test', subject: 's', html: 'h', idempotencyKey: 'slow-1' });
      const headers = { authorization: `Bearer ${sb.apiKey}`, 'content-type': 'application/json' };
      // The client gives up (a timeout of its own) once the email is in the inbox, while the answer still waits.
      const client = new AbortController();
      let answered = false;
      const request = fetch(`${sb.baseUrl}/v1/emails`, { method: 'POST', headers, body, signal: client.signal }).then(
        (res) => ((answered = true), res),
        (e: Error) => e,
      );
      await expect.poll(async () => (await sb.emails()).length, { interval: 10 }).toBe(1);
      expect(answered).toBe(false);
      client.abort(new DOMException('the client gave up', 'TimeoutError'));
      const gaveUp = await request;
      expect(gaveUp).toBeInstanceOf(Error);
      expect((gaveUp as Error).name).toBe('TimeoutError');
      const inbox = await sb.emails();
      expect(inbox.map((e) => e.idempotencyKey)).toEqual(['slow-1']);
    } finally {
      await sb.close();
    }
  });

  test('latencyMs: the work is done, then the answer waits; latencyBeforeMs: the request waits, then the work is done', async () => {
    for (const [faults, workAfterStartMs, answerAfterWorkMs] of [
      [{ latencyMs: 500 }, [0, 400], [490, Infinity]],
      [{ latencyBeforeMs: 500 }, [490, Infinity], [0, 400]],
    ] as const) {
      const sb = await withSandbox({ config: { faults } });
      try {
        const started = Date.now();
        const res = await client(sb)('POST', '/v1/emails', { from: 'a@example.com', to: 'when@x.test', subject: 's', html: 'h' });
        const answered = Date.now();
        expect(res.status).toBe(200);
        const createdAt = Date.parse((await sb.emails())[0]!.createdAt);
        const label = JSON.stringify(faults);
        expect(createdAt - started, label).toBeGreaterThanOrEqual(workAfterStartMs[0]);
        expect(createdAt - started, label).toBeLessThan(workAfterStartMs[1]);
        expect(answered - createdAt, label).toBeGreaterThanOrEqual(answerAfterWorkMs[0]);
        expect(answered - createdAt, label).toBeLessThan(answerAfterWorkMs[1]);
      } finally {
        await sb.close();
      }
    }
  });

  test('latencyMs delays /v1 answers, not /_sandbox ones', async () => {
    const sb = await withSandbox({ config: { faults: { latencyMs: 500 } } });
    try {
      const call = client(sb);
      let started = Date.now();
      expect((await call('GET', '/v1/api-keys/check')).status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(490);
      started = Date.now();
      await sb.emails();
      expect(Date.now() - started).toBeLessThan(400);
    } finally {
      await sb.close();
    }
  });
});

describe('--data persistence', () => {
  test('keys, webhooks, emails, idempotency and the workspace survive a restart; the file is written atomically', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-sandbox-'));
    const dataFile = join(dir, 'state.json');
    try {
      const first = await startSandbox({ dataFile });
      const call1 = client(first);
      const created = (await call1('POST', `/v1/workspaces/${first.workspaceId}/api-keys`, { displayName: 'kept', role: 'API_USER' })).body.apiKey;
      const hook = (await call1('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/h', events: ['CONTACT_CREATED'] })).body.webhook;
      const sent = (await call1('POST', '/v1/emails', raw({ idempotencyKey: 'persist-1' }))).body.email;
      await first.close();
      expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      const mode = (await import('node:fs')).statSync(dataFile).mode & 0o777;
      expect(mode).toBe(0o600);

      const second = await startSandbox({ dataFile });
      try {
        const call2 = client(second);
        expect(second.workspaceId).toBe(first.workspaceId);
        expect(second.apiKey).toBe(first.apiKey);
        expect((await call2('GET', '/v1/api-keys/check', undefined, { key: created.secretKey })).body.displayName).toBe('kept');
        expect((await call2('GET', `/v1/webhooks/${hook.id}`)).body.webhook.token).toBe(hook.token);
        const inbox = (await call2('GET', '/_sandbox/emails')).body.items;
        expect(inbox.map((e: { id: string }) => e.id)).toEqual([sent.id]);
        expect((await call2('POST', '/v1/emails', raw({ idempotencyKey: 'persist-1' }))).body.email).toEqual(sent);
        expect((await call2('GET', '/_sandbox/emails')).body.items).toHaveLength(1);
      } finally {
        await second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('every acknowledged change to keys, webhooks, contacts and the inbox is on disk when its answer arrives (no exit needed)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-sandbox-'));
    const dataFile = join(dir, 'state.json');
    try {
      const first = await startSandbox({ dataFile });
      const call = client(first);
      const keys = `/v1/workspaces/${first.workspaceId}/api-keys`;
      const kept = (await call('POST', keys, { displayName: 'kept', role: 'API_USER' })).body.apiKey;
      expect((await call('POST', `${keys}/${kept.id}`, { displayName: 'renamed', role: 'VIEWER' })).status).toBe(200);
      const gone = (await call('POST', keys, { displayName: 'gone', role: 'API_USER' })).body.apiKey;
      expect((await call('DELETE', `${keys}/${gone.id}`)).status).toBe(200);
      const hook = (await call('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/h', events: ['CONTACT_CREATED'] })).body.webhook;
      expect((await call('POST', `/v1/webhooks/${hook.id}`, { events: ['CONTACT_UPDATED', 'CONTACT_DELETED'] })).status).toBe(200);
      const other = (await call('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/o', events: ['CONTACT_CREATED'] })).body.webhook;
      expect((await call('DELETE', `/v1/webhooks/${other.id}`)).status).toBe(200);
      const sent = (await call('POST', '/v1/emails', raw({ to: 'ada@customer.test', idempotencyKey: 'acked-1' }))).body.email;
      expect((await call('POST', '/_sandbox/events', { event: 'CONTACT_UNSUBSCRIBED', email: 'ada@customer.test' })).status).toBe(200);
      const deleted = (await call('POST', '/v1/emails', raw({ to: 'bob@customer.test' }))).body.email;
      expect((await call('POST', `/_sandbox/emails/${deleted.id}/delete`, {})).status).toBe(200);

      // What is on disk while the first still runs, as a SIGKILL would leave it, started in a second sandbox.
      const copy = join(dir, 'copy');
      await mkdir(copy);
      for (const f of await readdir(dir)) if (f.startsWith('state.json')) await copyFile(join(dir, f), join(copy, f));
      const second = await startSandbox({ dataFile: join(copy, 'state.json') });
      try {
        const call2 = client(second);
        expect((await call2('GET', '/v1/api-keys/check', undefined, { key: kept.secretKey })).body).toMatchObject({ displayName: 'renamed', role: 'VIEWER' });
        expect((await call2('GET', '/v1/api-keys/check', undefined, { key: gone.secretKey })).status).toBe(401);
        expect((await call2('GET', `/v1/webhooks/${hook.id}`)).body.webhook.events).toEqual(['CONTACT_UPDATED', 'CONTACT_DELETED']);
        expect((await call2('GET', `/v1/webhooks/${other.id}`)).status).toBe(404);
        expect((await call2('GET', '/_sandbox/emails')).body.items.map((e: { id: string }) => e.id)).toEqual([sent.id]);
        expect((await call2('POST', '/v1/emails', raw({ to: 'ada@customer.test', idempotencyKey: 'acked-1' }))).body.email).toEqual(sent);
        const resub = await call2('POST', '/_sandbox/events', { event: 'CONTACT_UPDATED', email: 'ada@customer.test' });
        expect(resub.body.event.data.contact.properties.status).toBe('UNSUBSCRIBED');
      } finally {
        await second.close();
        await first.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a lock left by a sandbox that was killed (its pid gone) is taken over at start, and removed at exit', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-sandbox-'));
    const dataFile = join(dir, 'state.json');
    try {
      await writeFile(`${dataFile}.lock`, JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), startedAt: '2026-01-01T00:00:00.000Z' }));
      const sb = await startSandbox({ dataFile });
      expect(JSON.parse(await readFile(`${dataFile}.lock`, 'utf8')).pid).toBe(process.pid);
      await sb.close();
      expect(await readdir(dir)).toEqual(['state.json']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('an email accepted under a lost answer is saved too, so a retry after a restart sends nothing new', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-sandbox-'));
    const dataFile = join(dir, 'state.json');
    try {
      const first = await startSandbox({ port: 0, dataFile, config: { faults: { lostRate: 1 } } });
      const lost = await rawRequest(first.baseUrl, '/v1/emails', JSON.stringify(raw({ idempotencyKey: 'lost-saved' })), {
        'content-type': 'application/json',
        authorization: `Bearer ${first.apiKey}`,
      });
      expect(lost.status).toBeUndefined();
      await first.close();

      const second = await startSandbox({ port: 0, dataFile });
      try {
        const call = client(second);
        const retry = await call('POST', '/v1/emails', raw({ idempotencyKey: 'lost-saved' }));
        expect(retry.status).toBe(200);
        const inbox = (await call('GET', '/_sandbox/emails')).body.items;
        expect(inbox).toHaveLength(1);
        expect(retry.body.email.id).toBe(inbox[0].id);
      } finally {
        await second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a data file that cannot be written is refused at start with one clear line, and nothing keeps listening', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-sandbox-'));
    try {
      const dataFile = join(dir, 'missing-dir', 'state.json');
      const err = await startSandbox({ port: 0, dataFile }).catch((e: Error) => e);
      expect(err).toBeInstanceOf(SandboxConfigError);
      expect((err as Error).message).toBe(`cannot write data file ${dataFile}: no such directory`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a data file that is not the sandbox’s is refused with one clear line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-sandbox-'));
    try {
      const bad = join(dir, 'bad.json');
      await writeFile(bad, '{"hello": 1}');
      await expect(startSandbox({ dataFile: bad })).rejects.toThrow(/not a mailroom sandbox data file/);
      expect(await readFile(bad, 'utf8')).toBe('{"hello": 1}');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
