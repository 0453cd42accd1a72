import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionError, Mailroom, MailroomError, TimeoutError, UnexpectedResponseError } from '../../src/library/index.js';
import { resetSecrets } from '../../src/secrets.js';
import { recordingProxy, type ForcedAnswer, type RecordingProxy } from '../helpers/recording-proxy.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';

const raw = { from: 'ops@example.com', to: 'ada@example.com', subject: 'Hello', html: '<p>Hi Ada</p>' };

/** Everything a program could print of an error: inspect (console.log), JSON, and each field, cause included. */
const everything = (err: unknown): string => {
  const seen = new Set<unknown>();
  const walk = (v: unknown): string => {
    if (v === null || typeof v !== 'object' || seen.has(v)) return String(v);
    seen.add(v);
    const names = new Set([...Object.getOwnPropertyNames(v), ...Object.keys(v)]);
    return [...names].map((k) => `${k}=${walk((v as Record<string, unknown>)[k])}`).join(' ');
  };
  return [inspect(err, { depth: 10, showHidden: true }), JSON.stringify(err), walk(err)].join('\n');
};

describe('emails.send: a failure after the request may have reached the API', () => {
  let sandbox: TestSandbox;
  let proxy: RecordingProxy | undefined;
  let direct: Mailroom;
  beforeAll(async () => {
    sandbox = await withSandbox();
    direct = new Mailroom({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl, env: {} });
  });
  afterAll(async () => {
    await direct.close();
    await sandbox.close();
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    await sandbox.reset();
  });

  const through = async (forced: ForcedAnswer, options: { timeoutMs?: number; maxRetries?: number } = {}) => {
    proxy = await recordingProxy(sandbox.baseUrl, (req) => (req.method === 'POST' ? forced : undefined));
    return new Mailroom({ apiKey: sandbox.apiKey, baseUrl: proxy.baseUrl, maxRetries: 0, env: {}, ...options });
  };

  it.each([
    ['a garbled answer (HTTZ, echoing the request headers)', { garble: true } as const, ConnectionError, {}],
    ['a connection reset after the API took it', { reset: true } as const, ConnectionError, {}],
    ['no answer within timeoutMs', { stall: true } as const, TimeoutError, { timeoutMs: 300 }],
    ['a 200 whose body is cut in the middle of its JSON', { unparseable: true } as const, UnexpectedResponseError, {}],
  ])('%s: its own error class, mayHaveBeenSent, the key to retry with; sent again with it, one email', async (_name, forced, Class, options) => {
    const mailroom = await through(forced, options);
    try {
      const err = (await mailroom.emails.send(raw).catch((e: unknown) => e)) as MailroomError;
      expect(err).toBeInstanceOf(Class);
      expect(err).toBeInstanceOf(MailroomError);
      expect(err.name).toBe(Class.name);
      const key = JSON.parse(proxy!.seen[0]!.body).idempotencyKey as string;
      expect(key).toMatch(/^[0-9a-f-]{36}$/);
      expect({ mayHaveBeenSent: err.mayHaveBeenSent, idempotencyKey: err.idempotencyKey }).toEqual({ mayHaveBeenSent: true, idempotencyKey: key });
      expect(everything(err)).not.toContain(sandbox.apiKey);
      const again = await direct.emails.send({ ...raw, idempotencyKey: err.idempotencyKey });
      const inbox = await sandbox.emails();
      expect(inbox).toHaveLength(1);
      expect(again.email.id).toBe(inbox[0]!.id);
    } finally {
      await mailroom.close();
    }
  });

  it('a garbled answer is retried under the same key (maxRetries): one email, and the error still says it may have been sent', async () => {
    const mailroom = await through({ garble: true }, { maxRetries: 2 });
    try {
      const err = (await mailroom.emails.send(raw).catch((e: unknown) => e)) as MailroomError;
      expect(err).toBeInstanceOf(ConnectionError);
      const keys = proxy!.seen.map((r) => JSON.parse(r.body).idempotencyKey as string);
      expect(keys).toHaveLength(3);
      expect(new Set(keys)).toEqual(new Set([err.idempotencyKey]));
      expect(err.mayHaveBeenSent).toBe(true);
      expect(await sandbox.emails()).toHaveLength(1);
    } finally {
      await mailroom.close();
    }
  });

  it('an onRetry that throws stops the retries; the call rejects with a MailroomError that still says the email may have gone out, and under which key', async () => {
    const mailroom = await through({ garble: true }, { maxRetries: 2 });
    try {
      const err = (await mailroom.emails
        .send(raw, {
          onRetry: () => {
            throw new Error('metrics client broke');
          },
        })
        .catch((e: unknown) => e)) as MailroomError;
      expect(err).toBeInstanceOf(MailroomError);
      expect(err.message).toBe('onRetry threw: Error: metrics client broke (the request was not retried)');
      expect((err.cause as Error).message).toBe('metrics client broke');
      expect(proxy!.seen).toHaveLength(1);
      const key = JSON.parse(proxy!.seen[0]!.body).idempotencyKey as string;
      expect({ mayHaveBeenSent: err.mayHaveBeenSent, idempotencyKey: err.idempotencyKey }).toEqual({ mayHaveBeenSent: true, idempotencyKey: key });
      expect(await sandbox.emails()).toHaveLength(1);
    } finally {
      await mailroom.close();
    }
    // Before anything could have been sent (a refused connection), it says so too.
    const refused = new Mailroom({ apiKey: sandbox.apiKey, baseUrl: 'http://127.0.0.1:9', maxRetries: 1, env: {} });
    try {
      const err = (await refused.emails.send(raw, { onRetry: () => { throw new Error('x'); } }).catch((e: unknown) => e)) as MailroomError;
      expect(err).toBeInstanceOf(MailroomError);
      expect(err.mayHaveBeenSent).toBe(false);
    } finally {
      await refused.close();
    }
  });

  it('a connection refused and a 4xx verdict: nothing was sent, and the error says so (mayHaveBeenSent false)', async () => {
    const refused = new Mailroom({ apiKey: sandbox.apiKey, baseUrl: 'http://127.0.0.1:9', maxRetries: 0, env: {} });
    try {
      const err = (await refused.emails.send(raw).catch((e: unknown) => e)) as MailroomError;
      expect(err).toBeInstanceOf(ConnectionError);
      expect(err.mayHaveBeenSent).toBe(false);
    } finally {
      await refused.close();
    }
    const rejected = (await direct.emails.send({ ...raw, from: 'ops@unverified.test' }).catch((e: unknown) => e)) as MailroomError;
    expect(rejected.name).toBe('ApiError');
    expect(rejected.mayHaveBeenSent).toBe(false);
  });

  it('webhooks.create: a lost answer says the change may have been made (no key: a create has none); a GET never says so', async () => {
    const mailroom = await through({ reset: true });
    try {
      const err = (await mailroom.webhooks.create({ url: 'https://example.com/hooks', events: ['CONTACT_CREATED'] }).catch((e: unknown) => e)) as MailroomError;
      expect(err).toBeInstanceOf(ConnectionError);
      expect({ mayHaveBeenSent: err.mayHaveBeenSent, idempotencyKey: err.idempotencyKey }).toEqual({ mayHaveBeenSent: true, idempotencyKey: undefined });
      expect((await direct.webhooks.list()).items).toHaveLength(1);
    } finally {
      await mailroom.close();
    }
    await proxy!.close();
    proxy = await recordingProxy(sandbox.baseUrl, (req) => (req.method === 'GET' ? { reset: true } : undefined));
    const reader = new Mailroom({ apiKey: sandbox.apiKey, baseUrl: proxy.baseUrl, maxRetries: 0, env: {} });
    try {
      const err = (await reader.webhooks.list().catch((e: unknown) => e)) as MailroomError;
      expect(err).toBeInstanceOf(ConnectionError);
      expect(err.mayHaveBeenSent).toBe(false);
    } finally {
      await reader.close();
    }
  });

  it('sendBatch: a lost answer carries the keys of every email it held', async () => {
    const mailroom = await through({ reset: true });
    try {
      const err = (await mailroom.emails.sendBatch([raw, { ...raw, to: 'bob@example.com' }]).catch((e: unknown) => e)) as MailroomError;
      expect(err).toBeInstanceOf(ConnectionError);
      const sent = (JSON.parse(proxy!.seen[0]!.body).emails as Array<{ idempotencyKey: string }>).map((e) => e.idempotencyKey);
      expect({ mayHaveBeenSent: err.mayHaveBeenSent, idempotencyKeys: err.idempotencyKeys }).toEqual({ mayHaveBeenSent: true, idempotencyKeys: sent });
    } finally {
      await mailroom.close();
    }
  });
});

describe('a server that echoes the key back in what it answers', () => {
  let server: Server;
  let answer: (socket: Socket, head: string) => void;
  beforeAll(async () => {
    server = createServer();
    server.on('connection', (socket) => {
      let head = '';
      socket.on('data', (chunk: Buffer) => {
        head += chunk.toString('latin1');
        if (head.includes('\r\n\r\n')) answer(socket, head);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => {
    server.close();
    resetSecrets();
  });

  // Not shaped like a SMASHSEND key: only the client's own record of it can mask it.
  const key = 'mailroom-echo-test-key-7f3a9c2b1d';
  const url = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  it('HTTZ: a ConnectionError, not undici\'s HTTPParserError, and the key is in no field, cause, inspect or JSON', async () => {
    answer = (socket, head) => socket.end(`HTTZ/1.1 200 OK\r\n${head}`);
    const mailroom = new Mailroom({ apiKey: key, baseUrl: url(), maxRetries: 0, env: {} });
    try {
      const err = (await mailroom.emails.send(raw).catch((e: unknown) => e)) as ConnectionError;
      expect(err).toBeInstanceOf(ConnectionError);
      expect(err.name).toBe('ConnectionError');
      expect(err.kind).toBe('connection');
      expect(err.message).toMatch(/^the answer from http:\/\/127\.0\.0\.1:\d+ was not HTTP: /);
      expect(err.cause).toBeDefined();
      const all = everything(err);
      expect(all).toContain('Bearer …2b1d');
      expect(all).not.toContain(key);
      expect(all).not.toContain(key.slice(0, 20));
    } finally {
      await mailroom.close();
    }
  });

  it('an IdempotencyConflictError keeps the answer masked in `existing`', async () => {
    answer = (socket, head) => {
      const auth = /authorization: (.*)\r\n/i.exec(head)?.[1] ?? '';
      const body = JSON.stringify({ email: { id: 'trs_other', messageId: 'msg_other', status: 'SENT', to: 'someone@example.com', subject: `Hi (sent with ${auth})`, type: 'raw' } });
      socket.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
    };
    const mailroom = new Mailroom({ apiKey: key, baseUrl: url(), maxRetries: 0, env: {} });
    try {
      const err = (await mailroom.emails.send({ ...raw, idempotencyKey: 'order-1' }).catch((e: unknown) => e)) as MailroomError & { existing: { subject: string } };
      expect(err.name).toBe('IdempotencyConflictError');
      expect(err.existing.subject).toBe('Hi (sent with Bearer …2b1d)');
      expect(everything(err)).not.toContain(key);
    } finally {
      await mailroom.close();
    }
  });
});
