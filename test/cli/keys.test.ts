import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempConfigDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/context.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { recordingProxy } from '../helpers/recording-proxy.js';
import { fallbackWarning } from '../helpers/keychain.js';

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

interface Page {
  items: Key[];
  hasMore: boolean;
  startAt: string | null;
}

interface Key {
  createdAt: string;
  id: string;
  displayName: string;
  role: string;
  status: string;
  secretKey: string;
}

const keysPath = () => `/v1/workspaces/${sandbox.workspaceId}/api-keys`;
async function serverKeys(): Promise<Key[]> {
  const r = await call('GET', `${keysPath()}?limit=100`);
  return r.body.apiKeys.items;
}
async function makeKey(name: string): Promise<Key> {
  return (await call('POST', keysPath(), { displayName: name, role: 'API_USER' })).body.apiKey;
}
const works = async (secret: string) => (await call('GET', '/v1/api-keys/check', undefined, { key: secret })).status === 200;
const oneLine = (s: string) => s.trimEnd().split('\n').length === 1;

describe('keys list', () => {
  it('piped: the page of keys as JSON (items and paging state), secrets masked', async () => {
    const r = await runInProcess(['keys', 'list'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const keys = (JSON.parse(r.stdout) as Page).items;
    const ids = (await serverKeys()).map((k) => k.id);
    expect(keys.map((k) => k.id).sort()).toEqual(ids.slice(0, 15).sort());
    for (const k of keys) expect(k.secretKey).toMatch(/^sk_live_…[A-Za-z0-9]{0,4}$/);
    expect(r.stdout).not.toContain(sandbox.apiKey);
  });

  it('terminal: a table with a header row; --limit 1 warns on stderr that there are more; --all follows every page', async () => {
    for (const n of [1, 2, 3]) await makeKey(`paging-${n}`);
    const total = (await serverKeys()).length;
    const t = await runInProcess(['keys', 'list', '--no-color'], { env, tty: 'stdout' });
    expect(t.code).toBe(0);
    expect(t.stdout.split('\n')[0]).toMatch(/^ID +NAME +ROLE +STATUS +SECRET +CREATED$/);
    expect(t.stdout).toMatch(/paging-1 +API_USER +ACTIVE +sk_live_…/);
    expect(t.stdout).not.toContain(sandbox.apiKey);

    const one = await runInProcess(['keys', 'list', '--limit', '1'], { env });
    const first = JSON.parse(one.stdout) as Page;
    expect(first.items).toHaveLength(1);
    expect(first.hasMore).toBe(true);
    expect(first.startAt).toEqual(expect.any(String));
    expect(one.stderr).toBe(`More keys exist: use --all, or --start-at ${first.startAt} for the next page.\n`);

    const all = await runInProcess(['keys', 'list', '--limit', '1', '--all'], { env });
    expect(all.stderr).toBe('');
    const listed = JSON.parse(all.stdout) as Page;
    expect(listed.items).toHaveLength(total);
    expect(listed).toMatchObject({ hasMore: false, startAt: null });
    expect(new Set(listed.items.map((k) => k.id)).size).toBe(total);
  });

  it('a script can page with --start-at (from the JSON) and choose the order with --sort', async () => {
    for (const n of [1, 2, 3]) await makeKey(`script-page-${n}`);
    const seen: string[] = [];
    let startAt: string | null = null;
    for (let guard = 0; guard < 100; guard++) {
      const r = await runInProcess(['keys', 'list', '--limit', '2', '--sort', 'createdAt.asc', ...(startAt ? ['--start-at', startAt] : [])], { env });
      expect(r.code).toBe(0);
      const page = JSON.parse(r.stdout) as Page;
      seen.push(...page.items.map((k) => k.id));
      if (!page.hasMore) break;
      startAt = page.startAt;
    }
    const server = await serverKeys();
    expect(new Set(seen).size).toBe(server.length);
    const asc = await runInProcess(['keys', 'list', '--all', '--sort', 'createdAt.asc', '--json', 'id,createdAt'], { env });
    const items = (JSON.parse(asc.stdout) as Page).items;
    expect(Object.keys(items[0] as object)).toEqual(['id', 'createdAt']);
    const times = items.map((k) => Date.parse(k.createdAt));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('--sort takes createdAt.asc or createdAt.desc only; --start-at an ISO time; an unknown --json field exits 2 naming the valid ones', async () => {
    const sort = await runInProcess(['keys', 'list', '--sort', 'name'], { env });
    expect(sort.code).toBe(2);
    expect(sort.stderr).toMatch(/^mailroom: .*--sort.*createdAt\.desc, createdAt\.asc/);
    const start = await runInProcess(['keys', 'list', '--start-at', 'yesterday'], { env });
    expect(start.code).toBe(2);
    expect(start.stderr).toMatch(/^mailroom: --start-at must be an ISO 8601 time.*"yesterday"\n$/);
    const field = await runInProcess(['keys', 'list', '--json', 'id,nmae'], { env });
    expect(field.code).toBe(2);
    expect(field.stderr).toMatch(/^mailroom: --json: unknown field "nmae"; valid fields: id, .*displayName/);
    expect(JSON.parse(field.stdout)).toMatchObject({ error: { kind: 'usage', exitCode: 2 } });
  });

  it('an API error under --json: the stderr line, and one JSON object on stdout with status and request id', async () => {
    const r = await runInProcess(['keys', 'list', '--json'], { env: { ...env, MAILROOM_API_KEY: 'sk_live_notAValidKey000000000' } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^mailroom: /);
    const { error } = JSON.parse(r.stdout) as { error: Record<string, unknown> };
    expect(error).toMatchObject({ kind: 'auth', statusCode: 401, exitCode: 3, requestId: expect.any(String) });
    expect(String(error.message)).not.toContain('sk_live_notAValidKey');
  });
});

describe('keys create', () => {
  it('piped: the full secret once on stdout, the warning on stderr; the secret works', async () => {
    const r = await runInProcess(['keys', 'create', '--name', 'deploy-bot'], { env });
    expect(r.code).toBe(0);
    const key = JSON.parse(r.stdout) as Key;
    expect(key).toMatchObject({ displayName: 'deploy-bot', role: 'API_USER', status: 'ACTIVE' });
    expect(key.secretKey).toMatch(/^sk_live_[A-Za-z0-9]{20,}$/);
    expect(r.stderr).toBe('This is the only time the secret is shown: it cannot be retrieved again. Store it now.\n');
    expect(await works(key.secretKey)).toBe(true);
    const listed = await runInProcess(['keys', 'list', '--all'], { env });
    expect(listed.stdout).toContain(key.id);
    expect(listed.stdout).not.toContain(key.secretKey);
  });

  it('terminal: key/value view with the secret; --role and the --workspace flag', async () => {
    const r = await runInProcess(['keys', 'create', '--name', 'tty-key', '--role', 'API_USER', '--workspace', sandbox.workspaceId, '--no-color'], {
      env: { ...env, MAILROOM_WORKSPACE: undefined },
      tty: 'stdout',
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^name +tty-key$/m);
    expect(r.stdout).toMatch(/^secret +sk_live_[A-Za-z0-9]{20,}$/m);
    expect(r.stderr).toContain('cannot be retrieved again');
  });

  it('--save-as stores key, base URL and workspace in a profile that then works on its own', async () => {
    const configDir = tempConfigDir();
    dirs.push(configDir);
    const r = await runInProcess(['keys', 'create', '--name', 'ci', '--save-as', 'ci', '-q'], { env, configDir });
    expect(r).toEqual({ stdout: '', stderr: fallbackWarning(configDir), code: 0 });
    const viaProfile = await runInProcess(['keys', 'list', '--all', '--profile', 'ci'], { configDir });
    expect(viaProfile.code).toBe(0);
    expect((JSON.parse(viaProfile.stdout) as Page).items.some((k) => k.displayName === 'ci')).toBe(true);
  });

  it('a config directory that is a file is refused before any key is created', async () => {
    const dir = tempConfigDir();
    dirs.push(dir);
    const notADir = join(dir, 'a-file');
    writeFileSync(notADir, '');
    const before = (await serverKeys()).length;
    const r = await runInProcess(['keys', 'create', '--name', 'unsaved', '--save-as', 'ci', '-q'], { env, configDir: notADir });
    expect(r).toEqual({ code: 2, stdout: '', stderr: `mailroom: config directory ${notADir} is not a directory\n` });
    expect((await serverKeys()).length).toBe(before);
  });

  // Writing is refused to another user (root ignores permissions): the store reads fine, the save fails.
});

describe('keys update and delete', () => {
  it('update renames a key; the output masks the secret', async () => {
    const key = await makeKey('old-name');
    const r = await runInProcess(['keys', 'update', key.id, '--name', 'new-name', '--role', 'API_USER'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: key.id, displayName: 'new-name', role: 'API_USER' });
    expect(JSON.parse(r.stdout).secretKey).toMatch(/^sk_live_…/);
    expect((await serverKeys()).find((k) => k.id === key.id)?.displayName).toBe('new-name');
  });

  it('delete --yes: the key is gone and stops working at once', async () => {
    const key = await makeKey('to-delete');
    const created = await call('POST', keysPath(), { displayName: 'to-delete-2', role: 'API_USER' });
    const secret = created.body.apiKey.secretKey as string;
    const r = await runInProcess(['keys', 'delete', created.body.apiKey.id, '--yes'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: created.body.apiKey.id });
    expect(await works(secret)).toBe(false);
    expect((await serverKeys()).map((k) => k.id)).toContain(key.id);
  });

  it('delete without --yes and without a terminal refuses: exit 2, key kept', async () => {
    const key = await makeKey('kept');
    const r = await runInProcess(['keys', 'delete', key.id], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`mailroom: refusing to delete ${key.id} without --yes (no terminal to confirm on)\n`);
    expect((await serverKeys()).map((k) => k.id)).toContain(key.id);
  });


  it('an unknown key id: exit 4 with the API message', async () => {
    const r = await runInProcess(['keys', 'delete', 'aki_doesnotexist', '--yes'], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^mailroom: .*not found/);
  });
});

describe('keys rotate', () => {
  it('creates a replacement with the same name and role, verifies it, deletes the old key, saves the new one', async () => {
    const created = (await call('POST', keysPath(), { displayName: 'rotate-me', role: 'API_USER' })).body.apiKey as Key;
    const configDir = tempConfigDir();
    dirs.push(configDir);
    const r = await runInProcess(['keys', 'rotate', created.id, '--save-as', 'rotated', '--yes'], { env, configDir });
    expect(r.code).toBe(0);
    const fresh = JSON.parse(r.stdout) as Key;
    expect(fresh).toMatchObject({ displayName: 'rotate-me', role: 'API_USER' });
    expect(fresh.id).not.toBe(created.id);
    expect(r.stderr).toBe(`${fallbackWarning(configDir)}Rotated ${created.id} → ${fresh.id} ("rotate-me", API_USER); ${created.id} no longer works.\nSaved in profile "rotated".\n`);
    expect(await works(created.secretKey)).toBe(false);
    expect(await works(fresh.secretKey)).toBe(true);
    const ids = (await serverKeys()).map((k) => k.id);
    expect(ids).toContain(fresh.id);
    expect(ids).not.toContain(created.id);
    const viaProfile = await runInProcess(['keys', 'list', '--all', '--profile', 'rotated'], { configDir });
    expect(viaProfile.code).toBe(0);
  });

  it('rotating the very key in use says where to replace it', async () => {
    const own = (await call('POST', keysPath(), { displayName: 'self', role: 'API_USER' })).body.apiKey as Key;
    const r = await runInProcess(['keys', 'rotate', own.id, '--yes'], { env: { ...env, MAILROOM_API_KEY: own.secretKey } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`The key this command used (from MAILROOM_API_KEY) was ${own.id}: replace it with the new secret there.\n`);
    expect(await works(own.secretKey)).toBe(false);
    expect(await works((JSON.parse(r.stdout) as Key).secretKey)).toBe(true);
  });

  it('rotating the key in MAILROOM_API_KEY with --save-as <active profile> still says the variable must be replaced', async () => {
    const own = (await call('POST', keysPath(), { displayName: 'env-self', role: 'API_USER' })).body.apiKey as Key;
    const configDir = tempConfigDir();
    dirs.push(configDir);
    const r = await runInProcess(['keys', 'rotate', own.id, '--save-as', 'default', '--yes'], { env: { ...env, MAILROOM_API_KEY: own.secretKey }, configDir });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`The key this command used (from MAILROOM_API_KEY) was ${own.id}: replace it with the new secret there.\n`);
  });

  it('rotating the key of the active profile with --save-as that profile needs no such note', async () => {
    const own = (await call('POST', keysPath(), { displayName: 'profile-self', role: 'API_USER' })).body.apiKey as Key;
    const configDir = tempConfigDir();
    dirs.push(configDir);
    const noEnvKey = { ...env, MAILROOM_API_KEY: undefined };
    const login = await runInProcess(['login', '--api-key-stdin'], { env: noEnvKey, configDir, input: own.secretKey });
    expect(login.code).toBe(0);
    const r = await runInProcess(['keys', 'rotate', own.id, '--save-as', 'default', '--yes'], { env: noEnvKey, configDir });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('The key this command used');
    expect(await works(own.secretKey)).toBe(false);
  });

  it('terminal: shows the new secret once with the warning', async () => {
    const created = await makeKey('rotate-tty');
    const r = await runInProcess(['keys', 'rotate', created.id, '--no-color', '--yes'], { env, tty: 'stdout' });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^secret +sk_live_[A-Za-z0-9]{20,}$/m);
    expect(r.stderr).toContain('cannot be retrieved again');
  });

  it('the new key fails its check: the half-made key is deleted, the old key still works, exit 3', async () => {
    const created = (await call('POST', keysPath(), { displayName: 'check-fails', role: 'API_USER' })).body.apiKey as Key;
    const before = (await serverKeys()).map((k) => k.id).sort();
    // The check endpoint answers 401 to anything but the caller's own key: the new key "does not work".
    const proxy = await recordingProxy(sandbox.baseUrl, (req) =>
      req.path === '/v1/api-keys/check' && req.authorization !== `Bearer ${sandbox.apiKey}` ? { status: 401, body: { statusCode: 401, error: 'Unauthorized', message: 'Invalid API key' } } : undefined,
    );
    try {
      const r = await runInProcess(['keys', 'rotate', created.id, '--yes'], { env: { ...env, MAILROOM_BASE_URL: proxy.baseUrl } });
      expect(r.code).toBe(3);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines[0]).toMatch(new RegExp(`^mailroom: rotate: the new key aki_\\w+ failed its check: .*Invalid API key`));
      const newId = /the new key (aki_\w+)/.exec(lines[0]!)![1]!;
      expect(lines).toContain(`  deleted the new key ${newId} again`);
      expect(lines).toContain(`  the old key ${created.id} is unchanged and still works`);
      expect(proxy.seen.map((s) => `${s.method} ${s.path.split('?')[0]}`)).toEqual([
        `GET ${keysPath()}`,
        `POST ${keysPath()}`,
        'GET /v1/api-keys/check',
        `DELETE ${keysPath()}/${newId}`,
      ]);
    } finally {
      await proxy.close();
    }
    expect(await works(created.secretKey)).toBe(true);
    expect((await serverKeys()).map((k) => k.id).sort()).toEqual(before);
  });

  it('the old key cannot be deleted: the new key is printed (it works), both keys work, the error says so', async () => {
    const created = (await call('POST', keysPath(), { displayName: 'delete-fails', role: 'API_USER' })).body.apiKey as Key;
    const proxy = await recordingProxy(sandbox.baseUrl, (req) =>
      req.method === 'DELETE' && req.path.endsWith(`/${created.id}`) ? { status: 500, body: { statusCode: 500, error: 'Internal Server Error', message: 'database unavailable' } } : undefined,
    );
    try {
      const r = await runInProcess(['keys', 'rotate', created.id, '--max-retries', '0', '--yes'], { env: { ...env, MAILROOM_BASE_URL: proxy.baseUrl } });
      expect(r.code).toBe(6);
      const fresh = JSON.parse(r.stdout) as Key;
      expect(fresh.secretKey).toMatch(/^sk_live_[A-Za-z0-9]{20,}$/);
      expect(r.stderr).toMatch(new RegExp(`^mailroom: rotate: the new key ${fresh.id} works, but the old key ${created.id} could not be deleted: .*database unavailable`));
      expect(r.stderr).toContain(`both keys work now; delete the old one when you can: \`mailroom keys delete ${created.id} --yes\``);
      expect(r.stderr).toContain('the new secret is printed above (stdout), once');
      expect(await works(created.secretKey)).toBe(true);
      expect(await works(fresh.secretKey)).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it('an id not in the workspace: exit 4, nothing created', async () => {
    const before = (await serverKeys()).length;
    const r = await runInProcess(['keys', 'rotate', 'aki_notthere', '--yes'], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toBe(`mailroom: rotate: no key aki_notthere in workspace ${sandbox.workspaceId}\n  nothing was changed\n`);
    expect((await serverKeys()).length).toBe(before);
  });
});

describe('keys rotate asks first, as delete does', () => {
  it('without --yes and without a terminal: exit 2, no request sent, the old key untouched', async () => {
    const key = await makeKey('rotate-unasked');
    const before = (await serverKeys()).map((k) => k.id).sort();
    const proxy = await recordingProxy(sandbox.baseUrl);
    try {
      const r = await runInProcess(['keys', 'rotate', key.id], { env: { ...env, MAILROOM_BASE_URL: proxy.baseUrl } });
      expect(r).toEqual({ code: 2, stdout: '', stderr: `mailroom: refusing to rotate ${key.id} without --yes (no terminal to confirm on)\n` });
      expect(proxy.seen).toEqual([]);
    } finally {
      await proxy.close();
    }
    expect((await serverKeys()).map((k) => k.id).sort()).toEqual(before);
    expect(await works(key.secretKey)).toBe(true);
  });


});

describe('keys --help', () => {
  it('every keys command shows examples', async () => {
    for (const sub of ['list', 'create', 'update', 'delete', 'rotate']) {
      const r = await runInProcess(['keys', sub, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Examples:');
      expect(r.stdout).toContain(`$ mailroom keys ${sub}`);
      expect(oneLine(r.stderr) || r.stderr === '').toBe(true);
    }
  });
});
