import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempConfigDir, unwrap } from '../helpers/cli.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

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
// A real terminal session carries the prompt's cursor and colour escapes; assertions read the text.
// eslint-disable-next-line no-control-regex
const plain = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

// Real terminals (prompts answered by typing) and another user's permissions; every other keys case
// runs in-process in test/cli/keys.test.ts.
describe('keys create', () => {
  it.runIf(process.getuid?.() === 0)('--save-as that cannot be written still prints the new secret (even with -q) and says the key exists', async () => {
    const dir = tempConfigDir();
    dirs.push(dir);
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: {} }), { mode: 0o644 });
    const r = await runCli(['keys', 'create', '--name', 'unsaved', '--save-as', 'ci', '-q'], { env, configDir: dir, asUser: 65534 });
    expect(r.code).toBe(1);
    const fresh = JSON.parse(r.stdout) as Key;
    expect(fresh.displayName).toBe('unsaved');
    expect(await works(fresh.secretKey)).toBe(true);
    expect(r.stderr.split('\n')[0]).toMatch(new RegExp(`^mailroom: created key ${fresh.id}, but could not save it in profile "ci": `));
    expect(r.stderr).toContain('the new secret is printed above (stdout), once');
    // With --json: one document, the new key with the error inside it (docs/input-and-output.md).
    const json = await runCli(['keys', 'create', '--name', 'unsaved', '--save-as', 'ci', '--json'], { env, configDir: dir, asUser: 65534 });
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.stdout) as Key & { error: { kind: string; message: string; exitCode: number } };
    expect(doc).toMatchObject({ displayName: 'unsaved', error: { kind: 'unexpected', exitCode: 1, message: expect.stringMatching(new RegExp(`^created key ${doc.id}, but could not save it`)) } });
    expect(await works(doc.secretKey)).toBe(true);
  });
});

describe('keys update and delete', () => {
  it('delete on a terminal asks; "n" keeps the key (exit 2), "y" deletes it', async () => {
    const key = await makeKey('asked');
    const no = await runCli(['keys', 'delete', key.id, '--no-color'], { env, tty: true, input: [{ after: 'Delete API key', send: 'n\r' }] });
    expect(no.code).toBe(2);
    expect(unwrap(plain(no.stdout))).toContain(`Delete API key ${key.id} "asked" (API_USER)?`);
    expect(plain(no.stdout)).toContain(`mailroom: cancelled: did not delete ${key.id}`);
    expect((await serverKeys()).map((k) => k.id)).toContain(key.id);

    const yes = await runCli(['keys', 'delete', key.id, '--no-color'], { env, tty: true, input: [{ after: 'Delete API key', send: 'y\r' }] });
    expect(yes.code).toBe(0);
    expect(plain(yes.stdout)).toMatch(new RegExp(`^id +${key.id}$`, 'm'));
    expect(plain(yes.stdout)).toContain(`Deleted ${key.id}.`);
    expect((await serverKeys()).map((k) => k.id)).not.toContain(key.id);
  });
});

describe('keys rotate asks first, as delete does', () => {
  it('on a terminal: names the key and says it is the key in use; "n" changes nothing (exit 2), "y" rotates', async () => {
    const own = await makeKey('rotate-asked');
    const ownEnv = { ...env, MAILROOM_API_KEY: own.secretKey };
    const before = (await serverKeys()).map((k) => k.id).sort();
    const no = await runCli(['keys', 'rotate', own.id, '--no-color'], { env: ownEnv, tty: true, input: [{ after: 'Rotate API key', send: 'n\r' }] });
    expect(no.code).toBe(2);
    // The prompt wraps at the terminal's width.
    const asked = plain(no.stdout).replace(/\s+/g, ' ');
    expect(asked).toContain(`Rotate API key ${own.id} "rotate-asked" (API_USER)? It is the key mailroom is using now (from MAILROOM_API_KEY); it stops working once its replacement is created and checked.`);
    expect(asked).toContain(`mailroom: cancelled: did not rotate ${own.id}`);
    expect((await serverKeys()).map((k) => k.id).sort()).toEqual(before);
    expect(await works(own.secretKey)).toBe(true);

    const yes = await runCli(['keys', 'rotate', own.id, '--no-color'], { env: ownEnv, tty: true, input: [{ after: 'Rotate API key', send: 'y\r' }] });
    expect(yes.code).toBe(0);
    expect(plain(yes.stdout)).toMatch(/^secret +sk_live_[A-Za-z0-9]{20,}$/m);
    expect(await works(own.secretKey)).toBe(false);
  });
  it('a key not in use is named as such: anything using it stops working', async () => {
    const other = await makeKey('rotate-other');
    const no = await runCli(['keys', 'rotate', other.id, '--no-color'], { env, tty: true, input: [{ after: 'Rotate API key', send: 'n\r' }] });
    expect(no.code).toBe(2);
    expect(plain(no.stdout).replace(/\s+/g, ' ')).toContain(`Rotate API key ${other.id} "rotate-other" (API_USER)? Anything using it stops working once its replacement is created and checked.`);
    expect(await works(other.secretKey)).toBe(true);
  });
});
