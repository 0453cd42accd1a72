import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadConfigFile, resolveConfig, SandboxConfigError } from '../../src/sandbox/config.js';

describe('resolveConfig', () => {
  test('defaults: example.com verified, the welcome template, no limits, no faults, short retries', () => {
    const c = resolveConfig();
    expect(c.verifiedDomains).toEqual(['example.com']);
    expect(c.verifiedEmails).toEqual([]);
    expect(Object.keys(c.templates)).toEqual(['welcome']);
    expect(c.monthlyLimit).toBeUndefined();
    expect(c.rateLimit).toBeUndefined();
    expect(c.faults).toEqual({ errorRate: 0, dropRate: 0, lostRate: 0, latencyMs: 0, latencyBeforeMs: 0 });
    expect(c.deliveries.retryDelaysMs.length).toBeGreaterThan(0);
  });

  test('given keys replace the defaults; templates add to the built-in one; addresses compare lower-case', () => {
    const c = resolveConfig({ verifiedDomains: ['Acme.TEST'], verifiedEmails: ['Ops@X.test'], templates: { bye: { subject: 's', html: 'h' } } });
    expect(c.verifiedDomains).toEqual(['acme.test']);
    expect(c.verifiedEmails).toEqual(['ops@x.test']);
    expect(Object.keys(c.templates).sort()).toEqual(['bye', 'welcome']);
  });

  test('invalid values are one line naming each key', () => {
    expect(() => resolveConfig({ faults: { errorRate: 2 } })).toThrow(SandboxConfigError);
    expect(() => resolveConfig({ faults: { errorRate: 2 } })).toThrow(/faults\.errorRate/);
    expect(() => resolveConfig({ rateLimit: -1, templates: { x: { subject: 's' } } } as never)).toThrow(/templates\.x\.html is required; rateLimit must be /);
  });
});

describe('loadConfigFile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mailroom-config-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  test('reads the documented example', async () => {
    const file = join(dir, 'ok.json');
    await writeFile(file, JSON.stringify({ verifiedEmails: ['ops@acme.test'], monthlyLimit: 10000, rateLimit: 50, faults: { errorRate: 0.1, dropRate: 0.05, lostRate: 0.05, latencyMs: 20 } }));
    expect(await loadConfigFile(file)).toMatchObject({ monthlyLimit: 10000, faults: { lostRate: 0.05 } });
  });

  test('both latency faults: latencyMs (after the work) and latencyBeforeMs (before it), whole ms up to 60 s', async () => {
    const file = join(dir, 'latency.json');
    await writeFile(file, JSON.stringify({ faults: { latencyMs: 20, latencyBeforeMs: 5 } }));
    expect(resolveConfig(await loadConfigFile(file)).faults).toMatchObject({ latencyMs: 20, latencyBeforeMs: 5 });
    await writeFile(file, JSON.stringify({ faults: { latencyBeforeMs: 60_001 } }));
    await expect(loadConfigFile(file)).rejects.toThrow(/faults\.latencyBeforeMs/);
  });

  test('missing file, bad JSON and unknown keys each give one line', async () => {
    await expect(loadConfigFile(join(dir, 'none.json'))).rejects.toThrow(/^--config: cannot read .*none\.json: no such file$/);
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{ nope');
    await expect(loadConfigFile(bad)).rejects.toThrow(/is not valid JSON/);
    const unknown = join(dir, 'unknown.json');
    await writeFile(unknown, '{"verifiedDomain": ["x.test"]}');
    await expect(loadConfigFile(unknown)).rejects.toThrow(/unknown field verifiedDomain/);
  });
});

describe('webhooks in the config', () => {
  test('exist from the start (list and signed deliveries); a restart on the same --data keeps one per URL, with the config\'s events and token', async () => {
    const { startSandbox } = await import('../../src/sandbox/index.js');
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-cfg-hooks-'));
    const dataFile = join(dir, 'state.json');
    const url = 'http://127.0.0.1:9/hook';
    const list = async (baseUrl: string, apiKey: string) =>
      ((await (await fetch(`${baseUrl}/v1/webhooks`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as { webhooks: { items: { url: string; events: string[] }[] } }).webhooks.items;
    try {
      const first = await startSandbox({ port: 0, dataFile, config: { webhooks: [{ url, events: ['CONTACT_CREATED'], token: 'wht_first_token' }] } });
      expect((await list(first.baseUrl, first.apiKey)).map((h) => [h.url, h.events])).toEqual([[url, ['CONTACT_CREATED']]]);
      await first.close();
      const second = await startSandbox({ port: 0, dataFile, config: { webhooks: [{ url, events: ['CONTACT_DELETED', 'CONTACT_DELETED'], token: 'wht_second_token' }] } });
      const hooks = await list(second.baseUrl, second.apiKey);
      expect(hooks.map((h) => [h.url, h.events])).toEqual([[url, ['CONTACT_DELETED']]]);
      const id = (hooks[0] as unknown as { id: string }).id;
      const one = (await (await fetch(`${second.baseUrl}/v1/webhooks/${id}`, { headers: { authorization: `Bearer ${second.apiKey}` } })).json()) as { webhook: { token: string } };
      expect(one.webhook.token).toBe('wht_second_token');
      await second.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a webhook entry is checked like POST /v1/webhooks', () => {
    expect(() => resolveConfig({ webhooks: [{ url: 'http://127.0.0.1:9/h', events: [] }] })).toThrow(/^sandbox config: webhooks\.0\.events /);
  });
});
