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
