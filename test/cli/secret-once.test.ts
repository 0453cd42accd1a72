import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { recordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';

// The rule for every command that shows a new secret once (docs/keys.md, "Secrets shown once"): -q would
// throw the only copy away, so it is refused before anything is sent, unless the secret is kept
// elsewhere (keys --save-as) or was the caller's own (webhooks create --token).
let sandbox: TestSandbox;
let proxy: RecordingProxy;
let call: ReturnType<typeof client>;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await withSandbox();
  call = client(sandbox);
  proxy = await recordingProxy(sandbox.baseUrl);
  env = { MAILROOM_BASE_URL: proxy.baseUrl, MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_WORKSPACE: sandbox.workspaceId };
});
afterAll(async () => {
  await proxy.close();
  await sandbox.close();
});

const keysPath = () => `/v1/workspaces/${sandbox.workspaceId}/api-keys`;
const state = async () => ({
  keys: (await call('GET', `${keysPath()}?limit=100`)).body.apiKeys.items.map((k: { id: string }) => k.id),
  webhooks: JSON.stringify((await call('GET', '/v1/webhooks')).body),
});

describe('-q on a command that shows a new secret once', () => {
  const cases: [string, () => string[], RegExp][] = [
    ['keys create', () => ['keys', 'create', '--name', 'quiet'], /^mailroom: -q would discard the new secret \(it is shown only once\): add --save-as <profile> or drop -q\n$/],
    ['keys rotate', () => ['keys', 'rotate', 'aki_whatever1', '--yes'], /^mailroom: -q would discard the new secret \(it is shown only once\): add --save-as <profile> or drop -q\n$/],
    ['webhooks create', () => ['webhooks', 'create', '--url', 'http://127.0.0.1:9/q', '--event', 'CONTACT_CREATED'], /^mailroom: -q would discard the new webhook token \(it is shown only once\): give your own with --token, or drop -q\n$/],
    ['api POST /v1/webhooks', () => ['api', 'POST', '/v1/webhooks', '--data', '{"url":"http://127.0.0.1:9/q","events":["CONTACT_CREATED"]}'], /^mailroom: -q would discard the new webhook token \(it is shown only once\): put your own "token" in --data, or drop -q\n$/],
    ['api POST .../api-keys', () => ['api', 'POST', keysPath(), '--data', '{"displayName":"quiet","role":"API_USER"}'], /^mailroom: -q would discard the new secret \(it is shown only once\): drop -q\n$/],
  ];

  it.each(cases)('%s -q: exit 2, one line, no request sent, nothing created', async (_name, args, message) => {
    const before = await state();
    const seen = proxy.seen.length;
    const r = await runInProcess([...args(), '-q'], { env });
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(2);
    expect(proxy.seen.length).toBe(seen);
    expect(await state()).toEqual(before);
  });

  it('webhooks create --token … -q and api POST /v1/webhooks with a "token" -q: the caller has the secret, so -q works', async () => {
    const a = await runInProcess(['webhooks', 'create', '--url', 'http://127.0.0.1:9/mine', '--event', 'CONTACT_CREATED', '--token', 'wht_myOwnToken12345', '-q'], { env });
    expect(a).toEqual({ code: 0, stdout: '', stderr: '' });
    const b = await runInProcess(['api', 'POST', '/v1/webhooks', '-q', '--data', '{"url":"http://127.0.0.1:9/mine2","events":["CONTACT_CREATED"],"token":"wht_myOwnToken67890"}'], { env });
    expect(b).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await state()).webhooks).toContain('http://127.0.0.1:9/mine2');
  });
});
