import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeContext, runInProcess } from '../helpers/context.js';
import { printKeys } from '../../src/output/resources.js';
import type { ApiKey } from '../../src/schema/api-key.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

// Every kind of table mailroom prints, on terminals of 40, 50, 80 and 120 columns: no line wider than
// the terminal, every id whole (a table is where people copy them from). In-process: the width is
// the io's, as a terminal reports it.
let sandbox: TestSandbox;
let env: Record<string, string>;
let configDir: string;
const ids: Record<string, string[]> = {};

beforeAll(async () => {
  sandbox = await withSandbox();
  configDir = mkdtempSync(join(tmpdir(), 'mailroom-widths-'));
  const call = client(sandbox);
  env = { MAILROOM_BASE_URL: sandbox.baseUrl, MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_WORKSPACE: sandbox.workspaceId, MAILROOM_CONFIG_DIR: configDir };
  ids.keys = [];
  for (const name of ['deploy-bot for the production cluster in eu-west-1', 'ci']) {
    ids.keys.push((await call('POST', `/v1/workspaces/${sandbox.workspaceId}/api-keys`, { displayName: name, role: 'API_USER' })).body.apiKey.id);
  }
  ids.webhooks = [];
  const events = ['CONTACT_CREATED', 'CONTACT_UPDATED', 'CONTACT_UNSUBSCRIBED', 'CONTACT_RESUBSCRIBED', 'CONTACT_DELETED'];
  ids.webhooks.push((await call('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/mailroom/contact-events/for-the-crm', events })).body.webhook.id);
  ids.emails = [];
  for (const to of ['ada.lovelace@analytical-engines.example.com', 'bob@example.com']) {
    ids.emails.push((await call('POST', '/v1/emails', { from: 'ops@example.com', to, subject: `A subject line long enough to be shortened on any terminal ${to}`, html: '<p>Hi</p>' })).body.email.id);
  }
  await call('POST', '/_sandbox/events', { event: 'CONTACT_CREATED' });
  for (let i = 0; i < 200 && (await sandbox.deliveries()).length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  // Profiles and config: a stored profile with a long base URL.
  const login = await runInProcess(['config', 'set', 'base-url', 'https://api.smashsend.example.com/with/a/long/path'], { env: { MAILROOM_CONFIG_DIR: configDir } });
  expect(login.code, login.stderr).toBe(0);
});
afterAll(async () => {
  await sandbox.close();
  rmSync(configDir, { recursive: true, force: true });
});

const TABLES: [name: string, args: string[], ids: () => string[]][] = [
  ['keys list', ['keys', 'list'], () => ids.keys!],
  ['webhooks list', ['webhooks', 'list'], () => ids.webhooks!],
  ['webhooks events', ['webhooks', 'events'], () => ['CONTACT_UNSUBSCRIBED', 'WORKSPACE_TEAM_MEMBER_JOINED']],
  ['sandbox emails', ['sandbox', 'emails'], () => ids.emails!],
  ['sandbox deliveries', ['sandbox', 'deliveries'], () => ['CONTACT_CREATED']],
  ['config list', ['config', 'list'], () => ['base-url']],
  ['profiles', ['profiles'], () => []],
];

describe.each([40, 50, 80, 120])('a terminal of %i columns', (columns) => {
  it.each(TABLES)('%s: no line wider than the terminal, ids whole', async (_name, args, whole) => {
    const r = await runInProcess([...args, '--no-color'], { env, tty: 'stdout', columns });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.length, `${line}|`).toBeLessThanOrEqual(columns);
    for (const id of whole()) expect(r.stdout).toContain(id);
  });
});

describe('keys list with relative times of every length ("3 minutes ago", "11 months ago")', () => {
  it.each([40, 50, 80, 120])('%i columns: no line wider, ids whole', async (columns) => {
    const listed = (await client(sandbox)('GET', `/v1/workspaces/${sandbox.workspaceId}/api-keys?limit=100`)).body.apiKeys.items as ApiKey[];
    const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
    const keys = listed.map((k, i) => ({ ...k, createdAt: ago([3 * 60_000, 335 * 86_400_000, 2 * 3_600_000][i % 3]!) }));
    const { ctx, stdout } = fakeContext({ tty: { stdout: true }, columns });
    await printKeys(ctx, {}, { items: keys, hasMore: false, startAt: null });
    for (const line of stdout().trimEnd().split('\n')) expect(line.length, `${line}|`).toBeLessThanOrEqual(columns);
    for (const k of keys) expect(stdout()).toContain(k.id);
    // Where the whole words fit, they are used.
    if (columns === 120) expect(stdout()).toContain('11 months ago');
  });
});
