import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PassThrough } from 'node:stream';
import { buildProgram, loadProgram } from '../../src/program.js';
import { fakeContext } from '../helpers/context.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

// buildProgram registers the command definitions loaded first (they load on demand).
await loadProgram();

let sb: TestSandbox;

/** Starts `mailroom webhooks listen …` in-process; `stop()` is its Ctrl-C. */
function listen(args: string[], env: Record<string, string> = {}) {
  const abort = new AbortController();
  const { ctx, stderr } = fakeContext({ env: { MAILROOM_BASE_URL: sb.baseUrl, MAILROOM_API_KEY: sb.apiKey, ...env }, signal: abort.signal });
  const lines: string[] = [];
  let partial = '';
  (ctx.io.out as PassThrough).on('data', (d: Buffer) => {
    partial += d.toString();
    const parts = partial.split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
  });
  const argv = ['webhooks', 'listen', '--port', '0', '--json', ...args];
  const done = buildProgram(ctx, argv).parseAsync(['node', 'mailroom', ...argv]).then(
    () => undefined,
    (e: Error) => e,
  );
  return { lines, stderr, done, stop: () => abort.abort() };
}

beforeAll(async () => {
  sb = await withSandbox();
});
afterAll(() => sb.close());

describe('webhooks listen --register (against a sandbox)', () => {
  it('creates a webhook delivering to the listener with its token, verifies deliveries with it, deletes it on exit', async () => {
    const call = client(sb);
    const run = listen(['--register', '--events', 'CONTACT_CREATED']);
    await expect.poll(() => run.lines.length, { timeout: 10_000 }).toBeGreaterThan(0);
    const ready = JSON.parse(run.lines[0]!);
    expect(ready).toEqual({ ready: true, url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), webhookId: expect.stringMatching(/^wh_/), token: expect.stringMatching(/^wht_/) });
    const hooks = (await call('GET', '/v1/webhooks')).body.webhooks.items;
    expect(hooks).toEqual([expect.objectContaining({ id: ready.webhookId, url: ready.url, events: ['CONTACT_CREATED'] })]);
    expect(run.stderr()).toContain(`Registered webhook ${ready.webhookId} delivering to ${ready.url}; deleted on exit`);

    await call('POST', '/_sandbox/events', { event: 'CONTACT_CREATED', email: 'ada@customer.test' }, { headers: { 'content-type': 'application/json' } });
    await expect.poll(() => run.lines.length, { timeout: 10_000 }).toBe(2);
    expect(JSON.parse(run.lines[1]!)).toMatchObject({ event: 'CONTACT_CREATED', verified: true });
    await expect.poll(() => sb.deliveries().then((d) => d.map((x) => x.statusCode))).toEqual([200]);

    run.stop();
    // Ctrl-C (the abort) ends listen with exit 130 like every command (landed beside this test).
    expect(await run.done).toMatchObject({ name: 'QuietExit', code: 130 });
    expect((await call('GET', '/v1/webhooks')).body.webhooks.items).toEqual([]);
    expect(run.stderr()).toContain(`Deleted webhook ${ready.webhookId}\n`);
  });

  it('refuses --webhook with it, and an API that is not a sandbox, before listening', async () => {
    const both = listen(['--register', '--webhook', 'wh_something']);
    expect(await both.done).toMatchObject({ kind: 'validation', message: '--register creates its own webhook: drop --webhook (or drop --register to listen for that webhook)' });
    expect(both.lines).toEqual([]);

    const notSandbox = await new Promise<Server>((resolve) => {
      const s = createServer((_req, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"statusCode":404,"error":"Not Found","message":"No route GET /_sandbox/emails"}'));
      s.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const port = (notSandbox.address() as AddressInfo).port;
      const elsewhere = listen(['--register'], { MAILROOM_BASE_URL: `http://127.0.0.1:${port}` });
      expect(await elsewhere.done).toMatchObject({ kind: 'validation', message: `--register works with a mailroom sandbox only, and http://127.0.0.1:${port} is not one` });
      expect(elsewhere.lines).toEqual([]);
    } finally {
      await new Promise((r) => notSandbox.close(r));
    }
  });
});
