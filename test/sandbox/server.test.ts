import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { resolveConfig } from '../../src/sandbox/config.js';
import { Deliverer } from '../../src/sandbox/deliveries.js';
import { EmailService } from '../../src/sandbox/emails.js';
import { buildServer } from '../../src/sandbox/server.js';
import { SandboxState } from '../../src/sandbox/state.js';

let app: FastifyInstance;
let state: SandboxState;
let changes = 0;

beforeAll(async () => {
  state = SandboxState.fresh('sk_live_unit');
  const config = resolveConfig();
  const deliverer = new Deliverer(state, config.deliveries);
  const emails = new EmailService(state, config, { contactChanged: () => undefined, scheduled: () => undefined });
  app = await buildServer({ state, config, emails, deliverer, changed: () => void changes++, reset: () => undefined, log: () => undefined });
});
afterAll(() => app.close());

describe('sandbox server wiring', () => {
  test('inspection endpoints and the inbox answer loopback callers only', async () => {
    for (const url of ['/_sandbox/emails', '/_sandbox/deliveries', '/']) {
      const remote = await app.inject({ url, remoteAddress: '10.1.2.3' });
      expect(remote.statusCode, url).toBe(403);
      expect(remote.json()).toEqual({ statusCode: 403, error: 'Forbidden', message: expect.stringContaining('loopback') });
      expect((await app.inject({ url, remoteAddress: '127.0.0.1' })).statusCode).toBe(200);
      expect((await app.inject({ url, remoteAddress: '::ffff:127.0.0.1' })).statusCode).toBe(200);
    }
  });

  test('inspection endpoints answer only requests for localhost or an IP address (no DNS rebinding)', async () => {
    for (const url of ['/_sandbox/emails', '/']) {
      for (const host of ['localhost:4025', 'localhost', 'app.localhost:4025', '127.0.0.1:4025', '[::1]:4025']) {
        expect((await app.inject({ url, remoteAddress: '127.0.0.1', headers: { host } })).statusCode, `${url} ${host}`).toBe(200);
      }
      const rebound = await app.inject({ url, remoteAddress: '127.0.0.1', headers: { host: 'attacker.example:4025' } });
      expect(rebound.statusCode, url).toBe(403);
      expect(rebound.json()).toEqual({ statusCode: 403, error: 'Forbidden', message: expect.stringContaining('not attacker.example') });
    }
    const api = await app.inject({ url: '/v1/api-keys/check', remoteAddress: '127.0.0.1', headers: { host: 'sandbox.example:4025', authorization: 'Bearer sk_live_unit' } });
    expect(api.statusCode).toBe(200);
  });

  test('the API itself answers remote callers that hold a key', async () => {
    const res = await app.inject({ url: '/v1/api-keys/check', remoteAddress: '10.1.2.3', headers: { authorization: 'Bearer sk_live_unit' } });
    expect(res.statusCode).toBe(200);
  });

  test('auth runs before the body is read: no key and malformed JSON is a 401', async () => {
    const res = await app.inject({ method: 'POST', url: '/v1/emails', headers: { 'content-type': 'application/json' }, payload: '{bad' });
    expect(res.statusCode).toBe(401);
  });

  test('writes mark the state changed (for --data); reads do not', async () => {
    const before = changes;
    await app.inject({ url: '/_sandbox/emails' });
    expect(changes).toBe(before);
    await app.inject({ method: 'POST', url: '/_sandbox/reset' });
    expect(changes).toBe(before + 1);
  });

  test('?limit on the email list keeps the newest and reports the total', async () => {
    for (const to of ['a@x.test', 'b@x.test', 'c@x.test']) {
      await app.inject({
        method: 'POST',
        url: '/v1/emails',
        headers: { authorization: 'Bearer sk_live_unit' },
        payload: { from: 'a@example.com', to, subject: 's', html: 'h' },
      });
    }
    const res = (await app.inject({ url: '/_sandbox/emails?limit=2' })).json();
    expect(res.total).toBe(3);
    expect(res.items.map((e: { to: string }) => e.to)).toEqual(['b@x.test', 'c@x.test']);
    expect((await app.inject({ url: '/_sandbox/emails?limit=x' })).statusCode).toBe(400);
  });

  test('JSON with a charset parameter is JSON; an empty JSON body reads as none (DELETE)', async () => {
    const auth = { authorization: 'Bearer sk_live_unit' };
    const charset = await app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: { ...auth, 'content-type': 'application/json; charset=utf-8' },
      payload: JSON.stringify({ url: 'http://127.0.0.1:9/', events: ['CONTACT_CREATED'] }),
    });
    expect(charset.statusCode).toBe(200);
    const removed = await app.inject({
      method: 'DELETE',
      url: `/v1/webhooks/${charset.json().webhook.id}`,
      headers: { ...auth, 'content-type': 'application/json' },
    });
    expect(removed.statusCode).toBe(200);
    expect(removed.json().isDeleted).toBe(true);
  });
});
