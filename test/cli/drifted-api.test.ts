import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';

/** A stand-in for the real service where it drifts from the documented API. */
const answers: Record<string, unknown> = {
  'GET /v1/api-keys/check': { status: 'SUCCEED', displayName: null, role: ['API_USER', 'EDITOR'], secretKey: 'sk_live_echoedbytheserver0001' },
  'GET /v1/webhooks': { webhooks: { items: [{ id: 'wh_1', url: 'https://e.test/h', events: ['CONTACT_TAG_ADDED'], createdAt: '2026-01-01T00:00:00Z', status: null }], hasMore: true } },
  'GET /v1/webhooks/wh_1': { webhook: { id: 'wh_1', url: 'https://e.test/h', events: ['CONTACT_CREATED'], token: null, createdAt: '2026-01-01T00:00:00Z', displayName: 'Billing hook', status: 'PAUSED', workspaceId: 'wrk_1', updatedAt: '2026-02-01T00:00:00Z' } },
  // No updatedAt nor createdAt, and no hasMore: all optional.
  'GET /v1/workspaces/wrk_1/api-keys': { apiKeys: { items: [{ id: 'key_1', displayName: 'CI', role: 'API_USER', status: 'ACTIVE' }] } },
  'POST /v1/emails': { email: { id: 'trs_1', messageId: 'm1', status: 'SENT', to: 'a@example.com', from: null, subject: null, type: null, warning: 'sender domain is warming up' } },
};

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const body = answers[`${req.method} ${req.url}`] ?? answers[`${req.method} ${req.url!.split('?')[0]}`];
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json', 'x-request-id': 'req_drift' });
      res.end(JSON.stringify(body ?? { statusCode: 404, error: 'Not Found', message: 'no such route' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const cli = (args: string[], tty?: 'stdout') => runInProcess([...args, '--base-url', base, '--api-key', 'sk_live_x', '--workspace', 'wrk_1'], tty ? { tty } : {});

describe('answers that drift from the spec', () => {
  it('keys list reads key items without the optional updatedAt and createdAt', async () => {
    const r = await cli(['keys', 'list']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).items).toEqual([expect.objectContaining({ id: 'key_1', displayName: 'CI' })]);
    const table = await cli(['keys', 'list', '--no-color'], 'stdout');
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('key_1');
  });

  it('check shows the answer as sent, values of unexpected types included', async () => {
    const r = await cli(['check']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'SUCCEED', displayName: null, role: ['API_USER', 'EDITOR'], secretKey: 'sk_live_…0001' });
    expect(r.stdout).not.toContain('sk_live_echoedbytheserver0001');
  });

  it('webhooks list says when the API reports more webhooks than it returned', async () => {
    const r = await cli(['webhooks', 'list']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ items: [expect.objectContaining({ id: 'wh_1', status: null })], hasMore: true });
    expect(r.stderr).toBe('The API says more webhooks exist than the 1 listed; it offers no way to fetch them.\n');
  });

  it('webhooks get on a terminal shows the name, workspace and update time the service adds', async () => {
    const r = await cli(['webhooks', 'get', 'wh_1', '--no-color'], 'stdout');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^name +Billing hook$/m);
    expect(r.stdout).toMatch(/^workspace +wrk_1$/m);
    // On a terminal a date reads relative, with the exact time beside it.
    expect(r.stdout).toMatch(/^updated +\S.* ago \(2026-02-01T00:00:00Z\)$/m);
    expect(r.stdout).not.toMatch(/^token/m);
  });

  it('send with null fields succeeds; on a terminal only what is present is shown, piped the warning also goes to stderr', async () => {
    const args = ['send', '--template', 'welcome', '--to', 'a@example.com'];
    const tty = await cli([...args, '--no-color'], 'stdout');
    expect(tty.code).toBe(0);
    expect(tty.stdout).not.toMatch(/^(from|subject|type) /m);
    expect(tty.stdout).toMatch(/^warning +sender domain is warming up$/m);
    const piped = await cli(args);
    expect(piped.code).toBe(0);
    expect(JSON.parse(piped.stdout)).toMatchObject({ id: 'trs_1', from: null, warning: 'sender domain is warming up' });
    expect(piped.stderr).toBe('mailroom: warning: sender domain is warming up\n');
  });

  it('a send whose 2xx answer breaks the contract says the email most likely went out and how to retry safely', async () => {
    const saved = answers['POST /v1/emails'];
    answers['POST /v1/emails'] = { email: { status: 'SENT', to: 'a@example.com' } };
    try {
      const r = await cli(['send', '--template', 'welcome', '--to', 'a@example.com', '--idempotency-key', 'k-123']);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        'mailroom: unexpected send response from the API: email has neither id nor messageId\n' +
          '  the API answered 200, so the email was most likely accepted: to retry without sending it twice, run:\n' +
          `    mailroom send --to a@example.com --template welcome --idempotency-key k-123 --api-key '<your key>' --base-url ${base} --workspace wrk_1\n` +
          '  request id: req_drift\n',
      );
    } finally {
      answers['POST /v1/emails'] = saved;
    }
  });
});
