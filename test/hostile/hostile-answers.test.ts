import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';

/**
 * A server whose answers carry terminal control sequences (set the window title, clear the
 * screen, a fake second line): every printer shows them escaped, never raw, on stdout and stderr.
 */
const EVIL = '\u001b]0;pwned\u0007\u001b[2J\r\nmailroom: all good';
const answers: Record<string, unknown> = {
  'GET /v1/api-keys/check': { status: 'SUCCEED', displayName: `ci${EVIL}`, role: 'API_USER' },
  'GET /v1/workspaces/wrk_1/api-keys': { apiKeys: { items: [{ id: 'key_1', displayName: `deploy${EVIL}`, role: 'API_USER', status: 'ACTIVE', createdAt: '2026-01-01T00:00:00Z' }], hasMore: true, startAt: `next${EVIL}` } },
  'GET /v1/webhooks': { webhooks: { items: [{ id: 'wh_1', url: `https://e.test/h${EVIL}`, events: ['CONTACT_CREATED'], createdAt: '2026-01-01T00:00:00Z' }] } },
  'POST /v1/emails': { email: { id: 'trs_1', status: 'SENT', to: 'a@example.com', subject: 'Hi', warning: `sender domain warming up${EVIL}` } },
};

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const body = answers[`${req.method} ${req.url!.split('?')[0]}`];
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body ?? { statusCode: 404, error: 'Not Found', message: `no such route${EVIL}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const onTerminal = (args: string[]) => runInProcess([...args, '--base-url', base, '--api-key', 'sk_live_x', '--workspace', 'wrk_1', '--no-color'], { tty: { stdout: true, stderr: true }, columns: 200 });
const send = ['send', '--from', 'a@example.com', '--to', 'a@example.com', '--subject', 'Hi', '--html', '<p>x</p>'];

describe('server text with terminal control sequences is shown escaped by every printer', () => {
  const cases: [string, string[], string][] = [
    ['keys list (table, and the next-page note)', ['keys', 'list'], 'deploy\\u001b]0;pwned\\u0007\\u001b[2J\\r\\nmailroom: all good'],
    ['webhooks list (table)', ['webhooks', 'list'], 'https://e.test/h\\u001b]0;pwned'],
    ['check (key/value lines)', ['check'], 'ci\\u001b]0;pwned\\u0007\\u001b[2J\\r\\nmailroom: all good'],
    ['whoami', ['whoami'], 'ci\\u001b]0;pwned'],
    ['send (key/value lines with its warning)', send, 'sender domain warming up\\u001b]0;pwned'],
    ['send --json (the warning line on stderr)', [...send, '--json'], 'sender domain warming up\\u001b]0;pwned'],
    ['an error message', ['webhooks', 'get', 'wh_2'], 'no such route\\u001b]0;pwned'],
  ];
  for (const [what, args, escaped] of cases) {
    it(what, async () => {
      const r = await onTerminal(args);
      const all = r.stdout + r.stderr;
      expect(all).toContain(escaped);
      expect(all).not.toContain('\u001b');
      expect(all).not.toContain('\u0007');
      expect(all).not.toMatch(/^mailroom: all good/m);
    });
  }
});
