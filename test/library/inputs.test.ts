import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookHandler, Mailroom, ValidationError, verifySignature, WebhookSignatureError } from '../../src/library/index.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';

const TOKEN = 'wht_inputsinputsinputs0123456789';
const raw = { from: 'ops@example.com', to: 'ada@example.com', subject: 'Hello', html: '<p>Hi</p>' };

describe('the webhook handler answers any request with its own result', () => {
  const handle = createWebhookHandler({ token: TOKEN });
  const signed = createHmac('sha256', TOKEN).update('{}').digest('hex');

  it('headers null or missing: no signature (401), not a TypeError', async () => {
    for (const headers of [null, undefined]) {
      const err = await handle({ body: '{}', headers } as never).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WebhookSignatureError);
      expect(err).toMatchObject({ reason: 'missing', statusCode: 401 });
    }
  });

  it('header values that are not strings are no headers; a list of strings is read', async () => {
    await expect(handle({ body: '{}', headers: { 'x-smashsend-signature': 42 } } as never)).rejects.toMatchObject({ reason: 'missing' });
    await expect(handle({ body: '{}', headers: { 'X-Smashsend-Signature': [signed] } })).rejects.toMatchObject({ reason: 'not-an-event', statusCode: 400 });
    await expect(handle({ body: '{}', headers: new Map([['x-smashsend-signature', signed]]) } as never)).rejects.toMatchObject({ reason: 'not-an-event' });
  });

  it('no request, headers of the wrong type, a parsed body, bad options: ValidationError in its own words', async () => {
    await expect(handle(null as never)).rejects.toThrow(new ValidationError('webhook handler: give the request as { body, headers }, got null'));
    await expect(handle({ body: '{}', headers: 'x-smashsend-signature: 1' } as never)).rejects.toThrow(/^webhook handler: headers must be a Headers object or an object of header names to values, got string$/);
    await expect(handle({ body: {}, headers: {} } as never)).rejects.toThrow(/the body must be the raw bytes \(a string or a Buffer\), before any JSON parser; got an object$/);
    expect(() => createWebhookHandler(undefined as never)).toThrow('createWebhookHandler: give the options as { token, maxAgeMs }, got undefined');
    expect(() => createWebhookHandler({ token: TOKEN, now: 5 } as never)).toThrow('createWebhookHandler: now must be a function returning a Date');
    expect(() => verifySignature(null as never, signed, TOKEN)).toThrow(ValidationError);
  });
});

describe('per-call options: the same limits as the client\'s, checked before anything is sent', () => {
  let server: Server;
  let requests = 0;
  let mailroom: Mailroom;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests += 1;
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    mailroom = new Mailroom({ apiKey: 'sk_live_inputsinputsinputs12', baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, maxRetries: 0, env: {} });
  });
  afterAll(async () => {
    await mailroom.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it.each([
    [{ timeoutMs: -1 }, 'timeoutMs must be a positive integer of at most 2147483647 (about 24 days), got -1'],
    [{ timeoutMs: 0.5 }, 'timeoutMs must be a positive integer of at most 2147483647 (about 24 days), got 0.5'],
    [{ timeoutMs: 1e12 }, 'timeoutMs must be a positive integer of at most 2147483647 (about 24 days), got 1000000000000'],
    [{ maxRetries: 1e9 }, 'maxRetries must be an integer from 0 to 10, got 1000000000'],
    [{ maxRetries: -1 }, 'maxRetries must be an integer from 0 to 10, got -1'],
    [{ signal: 'stop' }, 'signal must be an AbortSignal'],
    [{ onRetry: 1 }, 'onRetry must be a function'],
  ])('%o', async (opts, message) => {
    await expect(mailroom.emails.send(raw, opts as never)).rejects.toThrow(new ValidationError(`emails.send: ${message}`));
    await expect(mailroom.emails.sendBatch([raw], opts as never)).rejects.toThrow(`emails.sendBatch: ${message}`);
    await expect(mailroom.webhooks.list(opts as never)).rejects.toThrow(`webhooks.list: ${message}`);
    await expect(mailroom.apiKeys.check(opts as never)).rejects.toThrow(`apiKeys.check: ${message}`);
    const keys = new Mailroom({ apiKey: 'sk_live_x1234567890abcdef', workspaceId: 'wrk_1', env: {} });
    await expect(Promise.resolve(keys.apiKeys.list({}, opts as never))).rejects.toThrow(`apiKeys.list: ${message}`);
    await keys.close();
    if (!('signal' in opts) && !('onRetry' in opts)) expect(() => new Mailroom({ apiKey: 'sk_live_x1234567890abcdef', env: {}, ...opts } as never)).toThrow(`new Mailroom(): ${message}`);
    expect(requests).toBe(0);
  });
});

describe('apiKeys.list: the query within the bounds `mailroom keys list` puts on it', () => {
  it.each([
    [{ limit: 0 }, 'limit must be an integer from 1 to 100, got 0'],
    [{ limit: 1e9 }, 'limit must be an integer from 1 to 100, got 1000000000'],
    [{ sort: 'newest' }, 'sort must be createdAt.asc or createdAt.desc, got newest'],
    [{ startAt: '' }, 'startAt must be the startAt of the page before (a string)'],
  ])('%o', async (query, message) => {
    const mailroom = new Mailroom({ apiKey: 'sk_live_x1234567890abcdef', baseUrl: 'http://127.0.0.1:9', workspaceId: 'wrk_1', maxRetries: 0, env: {} });
    await expect(Promise.resolve(mailroom.apiKeys.list(query as never))).rejects.toThrow(new ValidationError(`apiKeys.list: ${message}`));
    const err = await (async () => {
      for await (const _ of mailroom.apiKeys.list(query as never)) return undefined;
      return undefined;
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    await mailroom.close();
  });
});

describe('an option no method reads is refused, not ignored', () => {
  it('a misspelt journal would start a new run and send again; the SDK\'s timeout; batch defaults; rotate\'s save', async () => {
    const mailroom = new Mailroom({ apiKey: 'sk_live_unknownunknownunknown', baseUrl: 'http://127.0.0.1:9', workspaceId: 'wrk_1', maxRetries: 0, env: {} });
    await expect(mailroom.emails.batch([raw], { jounral: 'run.journal' } as never)).rejects.toThrow(
      new ValidationError('emails.batch: unknown option jounral (known: journal, report, failed, concurrency, size, format, defaults, dryRun, newRun, allowOtherHost, allowOtherKey, signal, onProgress, timeoutMs, maxRetries)'),
    );
    await expect(mailroom.emails.batch([raw], { defaults: { form: 'ops@example.com' } } as never)).rejects.toThrow('emails.batch: defaults: unknown option form (known: from, subject, template, html, groupBy, sendAt)');
    await expect(mailroom.emails.send(raw, { timeout: 5000 } as never)).rejects.toThrow('emails.send: unknown option timeout: it is timeoutMs here');
    await expect(mailroom.webhooks.list({ retries: 1 } as never)).rejects.toThrow('webhooks.list: unknown option retries (known: signal, timeoutMs, maxRetries, onRetry)');
    await expect(mailroom.apiKeys.rotate('aki_1', { save: 'file' } as never)).rejects.toThrow('apiKeys.rotate: save must be a function that stores the new secret');
    await expect(mailroom.apiKeys.rotate('aki_1', { timeoutMs: 5 } as never)).rejects.toThrow('apiKeys.rotate: unknown option timeoutMs (known: signal, save)');
    await mailroom.close();
  });
});

describe('key and webhook bodies: checked against the wire schema before anything is sent', () => {
  let server: Server;
  let requests = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests += 1;
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a role, a name, a URL, events that the API would refuse or misread', async () => {
    const mailroom = new Mailroom({ apiKey: 'sk_live_bodiesbodiesbodies12', baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, workspaceId: 'wrk_1', maxRetries: 0, env: {} });
    const cases: Array<[() => Promise<unknown>, string]> = [
      [() => mailroom.apiKeys.create({ displayName: 'bot', role: 'ADMIN' as never }), 'apiKeys.create: role must be one of API_USER, EDITOR, VIEWER'],
      [() => mailroom.apiKeys.create({ displayName: 'bot\r\nX-Evil: 1', role: 'VIEWER' }), 'apiKeys.create: displayName must not contain control characters (U+000D at index 3)'],
      [() => mailroom.apiKeys.update('aki_1', {}), 'apiKeys.update: give displayName or role'],
      [() => mailroom.webhooks.create({ url: 'ftp://example.com/hook', events: ['CONTACT_CREATED'] }), 'webhooks.create: url is not an http(s) URL'],
      [() => mailroom.webhooks.create({ url: 'https://example.com/hook', events: [] }), 'webhooks.create: events must not be empty'],
      [() => mailroom.webhooks.update('wh_1', { events: ['NOPE' as never] }), 'webhooks.update: events.0 '],
      [() => mailroom.webhooks.update('wh_1', null as never), 'webhooks.update: the body must be an object'],
    ];
    try {
      for (const [call, message] of cases) {
        const err = await call().then(() => undefined, (e: unknown) => e);
        expect(err, message).toBeInstanceOf(ValidationError);
        expect((err as Error).message.startsWith(message), `${(err as Error).message} / ${message}`).toBe(true);
      }
      expect(requests).toBe(0);
    } finally {
      await mailroom.close();
    }
  });
});

describe('variables and contactProperties: every key the wire carries is sent, "__proto__" too', () => {
  let sandbox: TestSandbox;
  let mailroom: Mailroom;
  beforeAll(async () => {
    sandbox = await withSandbox();
    mailroom = new Mailroom({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl, env: {} });
  });
  afterAll(async () => {
    await mailroom.close();
    await sandbox.close();
  });
  afterEach(() => sandbox.reset());

  it('send, sendBatch and batch keep a "__proto__" key as the field it is', async () => {
    const variables = JSON.parse('{"__proto__":"proto","name":"Ada"}') as Record<string, string>;
    const contactProperties = JSON.parse('{"__proto__":"p","plan":"pro"}') as Record<string, string>;
    await mailroom.emails.send({ template: 'welcome', to: 'ada@example.com', variables });
    await mailroom.emails.sendBatch([{ ...raw, to: 'bob@example.com', contactProperties }]);
    const state = mkdtempSync(join(tmpdir(), 'mailroom-inputs-'));
    try {
      const summary = await mailroom.emails.batch([{ template: 'welcome', to: 'cy@example.com', variables }], { journal: join(state, 'proto.journal') });
      expect(summary).toMatchObject({ sent: 1, failed: 0 });
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
    const caught = await sandbox.emails();
    const field = (to: string, name: 'variables' | 'contactProperties') => JSON.stringify(caught.find((e) => e.to === to)![name]);
    expect(field('ada@example.com', 'variables')).toBe('{"__proto__":"proto","name":"Ada"}');
    expect(field('cy@example.com', 'variables')).toBe('{"__proto__":"proto","name":"Ada"}');
    expect(field('bob@example.com', 'contactProperties')).toBe('{"__proto__":"p","plan":"pro"}');
  });
});

describe('header fields refuse every line break and control character, Unicode ones too', () => {
  it.each([['U+2028', '\u2028'], ['U+2029', '\u2029'], ['U+0085', '\u0085'], ['U+009B', '\u009b'], ['U+000B', '\u000b']])('%s in a subject, a name, an address', async (code, ch) => {
    const mailroom = new Mailroom({ apiKey: 'sk_live_headersheadersheaders', baseUrl: 'http://127.0.0.1:9', env: {} });
    await expect(mailroom.emails.send({ ...raw, subject: `Hi${ch}Bcc: x@example.com` })).rejects.toThrow(new RegExp(`subject must not contain control characters \\(${code.replace('+', '\\+')} at index 2\\)`));
    await expect(mailroom.emails.send({ ...raw, fromName: `Ops${ch}` })).rejects.toBeInstanceOf(ValidationError);
    await expect(mailroom.emails.send({ ...raw, to: `ada${ch}@example.com` })).rejects.toBeInstanceOf(ValidationError);
    await expect(mailroom.emails.send({ template: 'welcome', to: 'ada@example.com', variables: { [`a${ch}`]: 'x' } })).rejects.toBeInstanceOf(ValidationError);
    await mailroom.close();
  });
});

describe('new Mailroom(): a key or workspace that cannot be one is refused, before anything is sent', () => {
  it.each([
    [{ apiKey: '   ' }, 'new Mailroom(): apiKey: the API key is blank'],
    [{ apiKey: 'sk_live_abc def' }, 'new Mailroom(): apiKey: the API key holds a space, a line break or a control character'],
    [{ apiKey: 'sk_live_abcdefabcdefabcdef', workspaceId: '' }, 'new Mailroom(): workspaceId must not be empty'],
  ])('%j', (options, message) => {
    expect(() => new Mailroom({ ...options, env: {} })).toThrow(ValidationError);
    expect(() => new Mailroom({ ...options, env: {} })).toThrow(message);
  });

  it('a blank MAILROOM_API_KEY is named as the source', () => {
    expect(() => new Mailroom({ env: { MAILROOM_API_KEY: ' \t' } })).toThrow('new Mailroom(): MAILROOM_API_KEY: the API key is blank');
  });
});
