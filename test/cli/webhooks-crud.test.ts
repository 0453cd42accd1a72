import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sandbox: TestSandbox;
let call: ReturnType<typeof client>;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await withSandbox();
  call = client(sandbox);
  env = { MAILROOM_BASE_URL: sandbox.baseUrl, MAILROOM_API_KEY: sandbox.apiKey };
});
afterAll(async () => {
  await sandbox.close();
});

interface Hook {
  id: string;
  url: string;
  events: string[];
  token?: string;
}

const makeHook = async (events = ['CONTACT_CREATED']): Promise<Hook> => (await call('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/in', events })).body.webhook;
const serverHook = async (id: string) => call('GET', `/v1/webhooks/${id}`);

describe('webhooks events', () => {
  it('piped: the six events and their meaning as JSON, with no API key and no reachable API', async () => {
    const r = await runInProcess(['webhooks', 'events'], { env: { MAILROOM_BASE_URL: 'http://127.0.0.1:1' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).hasMore).toBe(false);
    expect(JSON.parse(r.stdout).items).toEqual([
      { event: 'CONTACT_CREATED', meaning: 'A contact was created.' },
      { event: 'CONTACT_UPDATED', meaning: 'A contact was updated.' },
      { event: 'CONTACT_UNSUBSCRIBED', meaning: 'A contact unsubscribed.' },
      { event: 'CONTACT_RESUBSCRIBED', meaning: 'A contact resubscribed.' },
      { event: 'CONTACT_DELETED', meaning: 'A contact was deleted.' },
      { event: 'WORKSPACE_TEAM_MEMBER_JOINED', meaning: 'A team member joined the workspace.' },
    ]);
  });

  it('terminal: a table', async () => {
    const r = await runInProcess(['webhooks', 'events', '--no-color'], { tty: 'stdout' });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^EVENT +MEANING$/);
    expect(lines).toHaveLength(7);
    expect(lines[6]).toMatch(/^WORKSPACE_TEAM_MEMBER_JOINED +A team member joined the workspace\.$/);
  });
});

describe('webhooks create', () => {
  it('piped: the webhook with its full token, once; events repeatable, comma-separated, any case', async () => {
    const r = await runInProcess(['webhooks', 'create', '--url', 'https://hooks.example.com/in', '--event', 'contact_created,CONTACT_DELETED', '--event', 'WORKSPACE_TEAM_MEMBER_JOINED'], { env });
    expect(r.code).toBe(0);
    const hook = JSON.parse(r.stdout) as Hook;
    expect(hook).toMatchObject({ url: 'https://hooks.example.com/in', events: ['CONTACT_CREATED', 'CONTACT_DELETED', 'WORKSPACE_TEAM_MEMBER_JOINED'] });
    expect(hook.id).toMatch(/^wh_/);
    expect(hook.token).toMatch(/^wht_[A-Za-z0-9]{16,}$/);
    expect(r.stderr).toBe('This is the only time the token is shown in full: keep it with your receiver to verify deliveries.\n');
    expect((await serverHook(hook.id)).body.webhook.token).toBe(hook.token);
  });

  it('--token sets the signing token; terminal shows a key/value view', async () => {
    const r = await runInProcess(['webhooks', 'create', '--url', 'http://127.0.0.1:9/x', '--event', 'CONTACT_UPDATED', '--token', 'wht_mychosentoken123', '--no-color'], { env, tty: 'stdout' });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^id +wh_\w+$/m);
    expect(r.stdout).toMatch(/^events +CONTACT_UPDATED$/m);
    expect(r.stdout).toMatch(/^token +wht_mychosentoken123$/m);
  });
});

describe('webhooks list, get, update, delete: tokens masked', () => {
  it('list piped: { items, hasMore } of webhooks, no tokens', async () => {
    const hook = await makeHook();
    const r = await runInProcess(['webhooks', 'list'], { env });
    expect(r.code).toBe(0);
    const hooks = (JSON.parse(r.stdout) as { items: Hook[]; hasMore: boolean }).items;
    expect(hooks.find((h) => h.id === hook.id)).toMatchObject({ url: hook.url, events: hook.events });
    expect(r.stdout).not.toContain(hook.token);
  });

  it('list terminal: a table with a header row', async () => {
    const hook = await makeHook();
    const r = await runInProcess(['webhooks', 'list', '--no-color'], { env, tty: 'stdout' });
    expect(r.stdout.split('\n')[0]).toMatch(/^ID +URL +EVENTS +STATUS +CREATED$/); // the sandbox sends status, as the service does
    expect(r.stdout).toMatch(new RegExp(`^${hook.id} +http://127\\.0\\.0\\.1:9/in +CONTACT_CREATED`, 'm'));
  });

  it('get: the token masked (prefix and last four only), piped and on a terminal', async () => {
    const hook = await makeHook();
    const r = await runInProcess(['webhooks', 'get', hook.id], { env });
    expect(r.code).toBe(0);
    const got = JSON.parse(r.stdout) as Hook;
    expect(got).toMatchObject({ id: hook.id, url: hook.url, events: hook.events });
    expect(got.token).toBe(`wht_…${hook.token!.slice(-4)}`);
    expect(r.stdout).not.toContain(hook.token);
    const t = await runInProcess(['webhooks', 'get', hook.id, '--no-color'], { env, tty: 'stdout' });
    expect(t.stdout).toMatch(new RegExp(`^token +wht_…${hook.token!.slice(-4)}$`, 'm'));
    expect(t.stdout).not.toContain(hook.token);
  });

  it('update replaces the events; the answer masks the token', async () => {
    const hook = await makeHook();
    const r = await runInProcess(['webhooks', 'update', hook.id, '--event', 'CONTACT_UNSUBSCRIBED', '--event', 'CONTACT_RESUBSCRIBED'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).events).toEqual(['CONTACT_UNSUBSCRIBED', 'CONTACT_RESUBSCRIBED']);
    expect(r.stdout).not.toContain(hook.token);
    expect((await serverHook(hook.id)).body.webhook.events).toEqual(['CONTACT_UNSUBSCRIBED', 'CONTACT_RESUBSCRIBED']);
  });

  it('delete --yes removes it (token masked in the answer); without --yes and no terminal: refused', async () => {
    const hook = await makeHook();
    const refused = await runInProcess(['webhooks', 'delete', hook.id], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`mailroom: refusing to delete ${hook.id} without --yes (no terminal to confirm on)\n`);
    expect((await serverHook(hook.id)).status).toBe(200);

    const r = await runInProcess(['webhooks', 'delete', hook.id, '--yes'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).id).toBe(hook.id);
    expect(r.stdout).not.toContain(hook.token);
    expect((await serverHook(hook.id)).status).toBe(404);
  });


  it('an unknown webhook: exit 4', async () => {
    const r = await runInProcess(['webhooks', 'get', 'wh_nosuchhook'], { env });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^mailroom: .*not found/i);
  });
});

describe('webhooks --help', () => {
  it('every CRUD command shows examples; create documents that the token is shown once', async () => {
    for (const sub of ['list', 'get', 'create', 'update', 'delete', 'events']) {
      const r = await runInProcess(['webhooks', sub, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Examples:');
      expect(r.stdout).toContain(`$ mailroom webhooks ${sub}`);
    }
    expect((await runInProcess(['webhooks', 'create', '--help'])).stdout).toContain('printed in full only here');
  });
});
