import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paths } from '../../src/api/paths.js';
import { Mailroom, ValidationError } from '../../src/library/index.js';

describe('paths: every id in a request path is checked and encoded in one place', () => {
  it('builds the API paths from well-formed ids', () => {
    expect(paths.key('wrk_a1', 'aki_B-2')).toBe('/v1/workspaces/wrk_a1/api-keys/aki_B-2');
    expect(paths.webhook('wh_x_y')).toBe('/v1/webhooks/wh_x_y');
    expect(paths.sandboxEmail('trs_abc')).toBe('/_sandbox/emails/trs_abc');
    expect(paths.sandboxEmails(new URLSearchParams({ to: 'a b', limit: '0' }))).toBe('/_sandbox/emails?to=a+b&limit=0');
    expect(paths.sandboxEmails(new URLSearchParams())).toBe('/_sandbox/emails');
  });

  it.each([
    ['webhook', () => paths.webhook('..'), '".." is not a webhook id: expected wh_...'],
    ['webhook', () => paths.webhook('wh_../..'), '"wh_../.." is not a webhook id: expected wh_...'],
    ['API key', () => paths.key('wrk_1', '.'), '"." is not an API key id: expected aki_...'],
    ['API key', () => paths.key('wrk_1', ''), '"" is not an API key id: expected aki_...'],
    ['API key', () => paths.key('wrk_1', 'aki_'), '"aki_" is not an API key id: expected aki_...'],
    ['API key', () => paths.key('wrk_1', 'wh_1'), '"wh_1" is not an API key id: expected aki_...'],
    ['workspace', () => paths.keys('..'), '".." is not a workspace id: expected wrk_...'],
    ['workspace', () => paths.keys('wrk_1?x=1'), '"wrk_1?x=1" is not a workspace id: expected wrk_...'],
    ['workspace', () => paths.keys(undefined as unknown as string), 'a undefined is not a workspace id: expected wrk_...'],
    ['email', () => paths.sandboxEmail('trs_%2e%2e'), '"trs_%2e%2e" is not an email id: expected trs_...'],
    ['email', () => paths.sandboxInbox('trs_a#b'), '"trs_a#b" is not an email id: expected trs_...'],
  ])('refuses a bad %s id (case %#)', (_kind, build, message) => {
    expect(build).toThrow(ValidationError);
    expect(build).toThrow(message);
  });
});

describe('the library refuses ids that would reach another endpoint, sending nothing', () => {
  let server: Server;
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('webhooks and apiKeys with "..", ".", "" and wrong prefixes; a workspace of ".."', async () => {
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const good = new Mailroom({ apiKey: 'sk_live_pathspathspaths1234', baseUrl, workspaceId: 'wrk_1', maxRetries: 0, env: {} });
    const bad = new Mailroom({ apiKey: 'sk_live_pathspathspaths1234', baseUrl, workspaceId: '..', maxRetries: 0, env: {} });
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['webhooks.delete', () => good.webhooks.delete('..')],
      ['webhooks.get', () => good.webhooks.get('.')],
      ['webhooks.update', () => good.webhooks.update('', { events: ['CONTACT_CREATED'] })],
      ['apiKeys.update', () => good.apiKeys.update('.', { displayName: 'x' })],
      ['apiKeys.delete', () => good.apiKeys.delete('wh_1')],
      ['apiKeys.rotate', () => good.apiKeys.rotate('..')],
      ['apiKeys.list', () => Promise.resolve(bad.apiKeys.list())],
      ['apiKeys.create', () => bad.apiKeys.create({ displayName: 'x', role: 'API_USER' })],
      ['apiKeys.delete', () => bad.apiKeys.delete('check')],
    ];
    try {
      for (const [name, call] of calls) {
        const err = await call().then(() => undefined, (e: unknown) => e);
        expect(err, name).toBeInstanceOf(ValidationError);
        expect((err as Error).message, name).toMatch(/^"[^"]*" is not an? (webhook|API key|workspace) id: expected (wh|aki|wrk)_\.\.\.$/);
      }
      expect(seen).toEqual([]);
    } finally {
      await good.close();
      await bad.close();
    }
  });
});
