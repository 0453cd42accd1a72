import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { tempConfigDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/context.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

/**
 * `--json <fields>` that leaves out a new secret would throw its only copy away, as -q would: refused
 * before anything is created, unless the fields name it or the secret is kept another way.
 */
let sandbox: TestSandbox;
let call: ReturnType<typeof client>;
let env: Record<string, string>;
const dirs: string[] = [];

beforeAll(async () => {
  sandbox = await withSandbox();
  call = client(sandbox);
  env = { MAILROOM_BASE_URL: sandbox.baseUrl, MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_WORKSPACE: sandbox.workspaceId };
});
afterAll(async () => {
  await sandbox.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const keysPath = () => `/v1/workspaces/${sandbox.workspaceId}/api-keys`;
const keyCount = async () => ((await call('GET', `${keysPath()}?limit=100`)).body.apiKeys.items as unknown[]).length;
const hookCount = async () => ((await call('GET', '/v1/webhooks')).body.webhooks.items as unknown[]).length;

describe('a field list that would discard a new secret', () => {
  it('keys create --json id: exit 2, nothing created', async () => {
    const before = await keyCount();
    const r = await runInProcess(['keys', 'create', '--name', 'ci', '--json', 'id'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('mailroom: --json id would discard the new secret (it is shown only once): add secretKey to the fields, or add --save-as <profile>\n');
    expect(await keyCount()).toBe(before);
  });

  it('keys create --json id,secretKey prints both; --json id --save-as keeps it in the profile', async () => {
    const both = await runInProcess(['keys', 'create', '--name', 'ci', '--json', 'id,secretKey'], { env });
    expect(both.code).toBe(0);
    expect(Object.keys(JSON.parse(both.stdout) as object)).toEqual(['id', 'secretKey']);
    const dir = tempConfigDir();
    dirs.push(dir);
    const saved = await runInProcess(['keys', 'create', '--name', 'ci2', '--json', 'id', '--save-as', 'ci2'], { env: { ...env, MAILROOM_CONFIG_DIR: dir } });
    expect(saved.code).toBe(0);
    expect(Object.keys(JSON.parse(saved.stdout) as object)).toEqual(['id']);
  });

  it('keys rotate --json id: exit 2, the old key untouched', async () => {
    const key = (await call('POST', keysPath(), { displayName: 'old', role: 'API_USER' })).body.apiKey as { id: string };
    const before = await keyCount();
    const r = await runInProcess(['keys', 'rotate', key.id, '--yes', '--json', 'id'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^mailroom: --json id would discard the new secret \(it is shown only once\)/);
    expect(await keyCount()).toBe(before);
  });

  it('webhooks create --json id: exit 2 unless the token is your own or named', async () => {
    const before = await hookCount();
    const r = await runInProcess(['webhooks', 'create', '--url', 'https://h.example.com/in', '--event', 'CONTACT_CREATED', '--json', 'id,url'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('mailroom: --json id,url would discard the new webhook token (it is shown only once): add token to the fields, or give your own with --token\n');
    expect(await hookCount()).toBe(before);
    const own = await runInProcess(['webhooks', 'create', '--url', 'https://h.example.com/in', '--event', 'CONTACT_CREATED', '--token', 'wht_mychosentoken123', '--json', 'id'], { env });
    expect(own.code).toBe(0);
    const named = await runInProcess(['webhooks', 'create', '--url', 'https://h.example.com/in', '--event', 'CONTACT_CREATED', '--json', 'id,token'], { env });
    expect(named.code).toBe(0);
    expect((JSON.parse(named.stdout) as { token: string }).token).toMatch(/^wht_/);
  });

  it('api POST creating a key with --json id: exit 2, nothing created (api takes no field list: it prints the answer as it came)', async () => {
    const before = await keyCount();
    const r = await runInProcess(['api', 'POST', keysPath(), '--data', '{"displayName":"x","role":"API_USER"}', '--json', 'id'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('mailroom: --json id: api prints no fields to pick from; use --json alone and pipe the answer to jq\n');
    expect(await keyCount()).toBe(before);
  });
});
