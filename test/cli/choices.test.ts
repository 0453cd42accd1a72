import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { recordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';

/** Enum values in any case, canonicalised before they are sent; a near miss gets a suggestion. */
let sandbox: TestSandbox;
let proxy: RecordingProxy;
let env: Record<string, string>;
let dir: string;
beforeAll(async () => {
  sandbox = await withSandbox();
  proxy = await recordingProxy(sandbox.baseUrl);
  env = { MAILROOM_BASE_URL: proxy.baseUrl, MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_WORKSPACE: sandbox.workspaceId };
  dir = mkdtempSync(join(tmpdir(), 'mailroom-choices-'));
});
afterAll(async () => {
  await proxy.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => void proxy.seen.splice(0));

const bodies = (path: RegExp) => proxy.seen.filter((r) => path.test(r.path) && r.body !== '').map((r) => JSON.parse(r.body) as Record<string, unknown>);

describe('enum values are case-insensitive everywhere, and sent in the API spelling', () => {
  it('keys create --role viewer sends role VIEWER; keys update --role Editor sends EDITOR', async () => {
    const created = await runInProcess(['keys', 'create', '--name', 'ci', '--role', 'viewer', '--json'], { env });
    expect(created.code).toBe(0);
    expect(bodies(/api-keys$/)).toEqual([{ displayName: 'ci', role: 'VIEWER' }]);
    const id = (JSON.parse(created.stdout) as { id: string }).id;
    const updated = await runInProcess(['keys', 'update', id, '--role', 'Editor', '--json'], { env });
    expect(updated.code).toBe(0);
    expect(bodies(/api-keys\/aki_/)).toEqual([{ role: 'EDITOR' }]);
  });

  it('webhooks create --event contact_created,Contact_Deleted sends the canonical names', async () => {
    const r = await runInProcess(['webhooks', 'create', '--url', 'https://h.example.com/hook', '--event', 'contact_created,Contact_Deleted', '--json'], { env });
    expect(r.code).toBe(0);
    expect(bodies(/webhooks$/)[0]).toMatchObject({ events: ['CONTACT_CREATED', 'CONTACT_DELETED'] });
  });

  it('batch --format NDJSON, keys list --sort CREATEDAT.ASC, completion BASH are accepted', async () => {
    const input = join(dir, 'one.txt');
    writeFileSync(input, `${JSON.stringify({ to: 'a@example.com', from: 'ops@example.com', subject: 'S', html: '<p>x</p>' })}\n`);
    expect((await runInProcess(['batch', input, '--format', 'NDJSON', '--dry-run'], { env })).code).toBe(0);
    const list = await runInProcess(['keys', 'list', '--sort', 'CREATEDAT.ASC', '--json'], { env });
    expect(list.code).toBe(0);
    expect(proxy.seen.find((r) => r.path.includes('/api-keys?'))?.path).toContain('sort=createdAt.asc');
    const completion = await runInProcess(['completion', 'BASH'], { env });
    expect(completion.code).toBe(0);
    expect(completion.stdout).toContain('complete');
    const emails = await runInProcess(['sandbox', 'emails', '--status', 'scheduled', '--json'], { env: { MAILROOM_BASE_URL: sandbox.baseUrl } });
    expect(emails.code).toBe(0);
    expect(JSON.parse(emails.stdout)).toEqual({ items: [], hasMore: false, total: 0 });
  });

  it('config keys in any case: config get BASE-URL', async () => {
    const r = await runInProcess(['config', 'get', 'BASE-URL'], { env: { ...env, MAILROOM_CONFIG_DIR: dir } });
    expect(r).toMatchObject({ code: 0, stdout: `${proxy.baseUrl}\n` });
  });
});

describe('did you mean', () => {
  const cases: [string, string[], string][] = [
    ['an event name', ['webhooks', 'create', '--url', 'https://h.example.com/', '--event', 'contact_creatd'], "mailroom: unknown event contact_creatd (did you mean CONTACT_CREATED?); valid: CONTACT_CREATED, CONTACT_UPDATED, CONTACT_UNSUBSCRIBED, CONTACT_RESUBSCRIBED, CONTACT_DELETED, WORKSPACE_TEAM_MEMBER_JOINED\n"],
    ['a role', ['keys', 'create', '--name', 'x', '--role', 'vewer'], 'mailroom: --role "vewer" is not one of API_USER, EDITOR, VIEWER (did you mean VIEWER?)\n'],
    ['a config key', ['config', 'get', 'api-kye'], 'mailroom: unknown config key "api-kye" (did you mean api-key?): expected one of api-key, base-url, workspace, profile, timeout, max-retries, secure-storage\n'],
    ['a batch format', ['batch', 'x.json', '--format', 'ndjsn'], "mailroom: option '--format <format>' argument 'ndjsn' is invalid. --format must be one of json, ndjson, csv (did you mean ndjson?)\n"],
    ['a sub-command of a group', ['keys', 'lst'], "mailroom: unknown command 'lst' (did you mean list?)\n"],
    ['status', ['status'], "mailroom: unknown command 'status' (did you mean doctor, or check for the key alone?)\n"],
    ['auth', ['auth'], "mailroom: unknown command 'auth' (did you mean check, or doctor for everything?)\n"],
    ['trigger', ['trigger', 'CONTACT_CREATED'], "mailroom: unknown command 'trigger' (did you mean sandbox trigger?)\n"],
    ['an event to sandbox trigger', ['sandbox', 'trigger', 'contact_delted'], 'mailroom: unknown event contact_delted (did you mean CONTACT_DELETED?); valid: CONTACT_CREATED, CONTACT_UPDATED, CONTACT_UNSUBSCRIBED, CONTACT_RESUBSCRIBED, CONTACT_DELETED, WORKSPACE_TEAM_MEMBER_JOINED\n'],
  ];
  for (const [what, args, stderr] of cases) {
    it(`${what}: exit 2, one line with the suggestion, nothing sent`, async () => {
      const r = await runInProcess(args, { env: { ...env, MAILROOM_CONFIG_DIR: dir } });
      expect(r).toMatchObject({ code: 2, stdout: '', stderr });
      expect(proxy.seen).toEqual([]);
    });
  }

  it('nonsense suggests nothing', async () => {
    const r = await runInProcess(['keys', 'create', '--name', 'x', '--role', 'superuser'], { env });
    expect(r).toMatchObject({ code: 2, stderr: 'mailroom: --role "superuser" is not one of API_USER, EDITOR, VIEWER\n' });
  });

  it('whoami exists', async () => {
    const r = await runInProcess(['whoami', '--help'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: mailroom whoami/);
  });
});
