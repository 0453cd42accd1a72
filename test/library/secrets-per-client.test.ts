import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Mailroom, type MailroomError } from '../../src/library/index.js';
import { redactText, resetSecrets } from '../../src/secrets.js';

// Keys of no SMASHSEND shape: only a record of them can mask them.
const keyA = 'tenant-a-unshaped-key-0a1b2c3d4e';
const keyB = 'tenant-b-unshaped-key-9f8e7d6c5b';
const email = { from: 'ops@example.com', to: 'ada@example.com', subject: 'Hi', html: '<p>Hi</p>' };

describe('each client holds its own secrets', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    resetSecrets();
    // Answers every request with bytes that are not HTTP, echoing the request (its authorization header too).
    server = createServer((socket) => socket.once('data', (head: Buffer) => socket.end(`HTTZ/1.1 200 OK\r\n${head.toString('latin1')}`)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.close();
    resetSecrets();
  });

  const shown = (err: unknown) => [inspect(err, { depth: 10, showHidden: true }), JSON.stringify(err)].join('\n');

  it('two clients in one program: each error masks its own key; the process holds neither afterwards', async () => {
    const a = new Mailroom({ apiKey: keyA, baseUrl: url, maxRetries: 0, env: {} });
    const b = new Mailroom({ apiKey: keyB, baseUrl: url, maxRetries: 0, env: {} });
    try {
      const [errA, errB] = (await Promise.all([a.emails.send(email).catch((e: unknown) => e), b.emails.send(email).catch((e: unknown) => e)])) as MailroomError[];
      expect(shown(errA)).toContain('Bearer …3d4e');
      expect(shown(errA)).not.toContain(keyA);
      expect(shown(errB)).toContain('Bearer …6c5b');
      expect(shown(errB)).not.toContain(keyB);
    } finally {
      await a.close();
      await b.close();
    }
    // Outside the clients' calls (the program's own logging, another client): their keys are not the process's to hold.
    expect(redactText(`${keyA} ${keyB}`)).toBe(`${keyA} ${keyB}`);
  });

  it('the scope follows a call that hands back work for later: apiKeys.list awaited and iterated', async () => {
    const client = new Mailroom({ apiKey: keyA, baseUrl: url, workspaceId: 'wrk_tenanta', maxRetries: 0, env: {} });
    try {
      const awaited = await Promise.resolve(client.apiKeys.list()).catch((e: unknown) => e);
      expect(shown(awaited)).toContain('Bearer …3d4e');
      expect(shown(awaited)).not.toContain(keyA);
      const iterated = await (async () => {
        for await (const key of client.apiKeys.list()) return key;
      })().catch((e: unknown) => e);
      expect((iterated as Error).name).toBe('ConnectionError');
      expect(shown(iterated)).not.toContain(keyA);
    } finally {
      await client.close();
    }
    // Held by the client, not by the process, although the work ran after list() had returned.
    expect(redactText(keyA)).toBe(keyA);
  });
});
