import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fetchLinks } from '../../src/lint/fetch-links.js';

// A link that never answers ends at its timeout, whatever the garbage collector does meanwhile. A
// signal made by AbortSignal.timeout() and given only to AbortSignal.any() is held weakly there: a
// collection in between (frequent in a long test run) took it, and the link waited for ever.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer(() => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

it('a link that never answers times out at timeoutMs, with collections running meanwhile', async () => {
  const collecting = setInterval(gc, 10);
  try {
    const started = performance.now();
    const [result] = await Promise.race([
      fetchLinks([url], { timeoutMs: 200, concurrency: 1, signal: new AbortController().signal }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('still waiting after 3 s')), 3000)),
    ]);
    expect(result).toMatchObject({ url, error: 'timed out' });
    expect(performance.now() - started).toBeLessThan(3000);
  } finally {
    clearInterval(collecting);
  }
});
