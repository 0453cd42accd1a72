import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

// Deleting asks as rotate does: the key's name and role, and whether it is the key in use.
let sandbox: TestSandbox;
let call: ReturnType<typeof client>;
let env: Record<string, string>;
beforeAll(async () => {
  sandbox = await withSandbox();
  call = client(sandbox);
  env = { MAILROOM_BASE_URL: sandbox.baseUrl, MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_WORKSPACE: sandbox.workspaceId };
});
afterAll(() => sandbox.close());

const keysPath = () => `/v1/workspaces/${sandbox.workspaceId}/api-keys`;
const makeKey = async (name: string) => (await call('POST', keysPath(), { displayName: name, role: 'API_USER' })).body.apiKey as { id: string; secretKey: string };
const keyIds = async () => ((await call('GET', `${keysPath()}?limit=100`)).body.apiKeys.items as { id: string }[]).map((k) => k.id);
const works = async (secret: string) => (await call('GET', '/v1/api-keys/check', undefined, { key: secret })).status === 200;

describe('keys delete asks with the name and role', () => {
  it('another key: named, with its role; "no" keeps it with exit 2', async () => {
    const key = await makeKey('Billing worker');
    const r = await runInProcess(['keys', 'delete', key.id, '--no-color'], { env, tty: true, answers: [false] });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`? Delete API key ${key.id} "Billing worker" (API_USER)? Anything using it stops working at once.\n`);
    expect(r.stderr).toContain(`mailroom: cancelled: did not delete ${key.id}\n`);
    expect(await keyIds()).toContain(key.id);
  });

  it('the key in use: the question says so, naming where it came from', async () => {
    const key = await makeKey('This shell');
    const r = await runInProcess(['keys', 'delete', key.id, '--no-color'], { env: { ...env, MAILROOM_API_KEY: key.secretKey }, tty: true, answers: [true] });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `? Delete API key ${key.id} "This shell" (API_USER)? It is the key mailroom is using now (from MAILROOM_API_KEY): this command's own key, and anything else using it, stop working at once.\n`,
    );
    expect(await works(key.secretKey)).toBe(false);
  });

  it('--yes and the key in use: deleted, and one warning line says what stopped working', async () => {
    const key = await makeKey('Scripted');
    const r = await runInProcess(['keys', 'delete', key.id, '--yes', '--json'], { env: { ...env, MAILROOM_API_KEY: key.secretKey } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`mailroom: warning: ${key.id} was the key this command used (from MAILROOM_API_KEY): it no longer works; replace it there\n`);
    const other = await makeKey('Not mine');
    const quiet = await runInProcess(['keys', 'delete', other.id, '--yes', '--json'], { env });
    expect(quiet).toMatchObject({ code: 0, stderr: '' });
  });

  it('an id that is not in the workspace: exit 4 before asking, nothing deleted', async () => {
    const r = await runInProcess(['keys', 'delete', 'aki_doesnotexist', '--no-color'], { env, tty: true, answers: [] });
    expect(r.code).toBe(4);
    expect(r.stderr).toBe(`mailroom: no API key aki_doesnotexist in workspace ${sandbox.workspaceId}; nothing was deleted\n`);
  });
});

describe('webhooks delete asks with the URL and events', () => {
  it('names the webhook; "no" keeps it with exit 2, "yes" deletes it', async () => {
    const hook = (await call('POST', '/v1/webhooks', { url: 'https://hooks.example.com/in', events: ['CONTACT_CREATED', 'CONTACT_DELETED'] })).body.webhook as { id: string };
    const no = await runInProcess(['webhooks', 'delete', hook.id, '--no-color'], { env, tty: true, answers: [false] });
    expect(no.code).toBe(2);
    expect(no.stderr).toContain(`? Delete webhook ${hook.id} (https://hooks.example.com/in; CONTACT_CREATED, CONTACT_DELETED)? Deliveries to it stop.\n`);
    expect((await call('GET', `/v1/webhooks/${hook.id}`)).status).toBe(200);
    const yes = await runInProcess(['webhooks', 'delete', hook.id, '--no-color'], { env, tty: true, answers: [true] });
    expect(yes.code).toBe(0);
    expect((await call('GET', `/v1/webhooks/${hook.id}`)).status).toBe(404);
  });
});

describe('a declined prompt: exit 2, and the exit-code table says so', () => {
  it('help exit-codes names the declined prompt under 2', async () => {
    const r = await runInProcess(['help', 'exit-codes']);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('a confirmation prompt answered no (nothing done)');
  });
});
