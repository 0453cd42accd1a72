import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type * as Library from '../../src/library/index.js';
import { BIN, ROOT } from '../helpers/cli.js';

// The built library (dist/), not src/: the bundle loads undici's package entry for a proxy as a
// chunk of its own, where its CommonJS exports arrive as the default export only.
type Built = typeof Library;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

describe('HTTPS_PROXY through the built package', () => {
  it('a send to an https API goes through the proxy (CONNECT to the API host), as does the command; the error names the connection, not a TypeError', async () => {
    const connects: string[] = [];
    const proxy = createServer();
    proxy.on('connect', (req, socket) => {
      connects.push(req.url ?? '');
      socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    });
    servers.push(proxy);
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const { port } = proxy.address() as AddressInfo;

    const { Mailroom, MailroomError } = (await import(pathToFileURL(join(ROOT, 'dist', 'index.js')).href)) as Built;
    const mailroom = new Mailroom({ apiKey: 'sk_live_proxyproxyproxy1', baseUrl: 'https://api.example.test', maxRetries: 0, env: { HTTPS_PROXY: `http://127.0.0.1:${port}` } });
    try {
      const err = (await mailroom.emails.send({ from: 'ops@example.com', to: 'ada@example.com', subject: 'Hi', html: '<p>Hi</p>' }).catch((e: unknown) => e)) as Error;
      expect(err).toBeInstanceOf(MailroomError);
      expect(connects).toEqual(['api.example.test:443']);
    } finally {
      await mailroom.close();
    }

    // The command, through the same chunk: its own words for a refused tunnel, exit 6 (connection).
    const run = await promisify(execFile)(process.execPath, [BIN, 'check', '--base-url', 'https://api.example.test', '--max-retries', '0'], {
      env: { PATH: process.env.PATH, HOME: mkdtempSync(join(tmpdir(), 'mailroom-proxy-home-')), MAILROOM_API_KEY: 'sk_live_proxyproxyproxy1', HTTPS_PROXY: `http://127.0.0.1:${port}` },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code?: number; stderr?: string }) => ({ code: e.code, stderr: e.stderr ?? '' }),
    );
    expect(run.stderr).toMatch(/^mailroom: lost the connection to https:\/\/api\.example\.test before its answer: /);
    expect(run.code).toBe(6);
    expect(connects).toEqual(['api.example.test:443', 'api.example.test:443']);
  });
});
