import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { recordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

/** `--jq <expression>` on every command with one JSON document: jq itself (jq-wasm), gh's output rules. */
let sandbox: TestSandbox;
let proxy: RecordingProxy;
let env: Record<string, string>;
let call: ReturnType<typeof client>;

beforeAll(async () => {
  sandbox = await withSandbox();
  proxy = await recordingProxy(sandbox.baseUrl);
  call = client(sandbox);
  env = { MAILROOM_BASE_URL: proxy.baseUrl, MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_WORKSPACE: sandbox.workspaceId };
});
afterAll(async () => {
  await proxy.close();
  await sandbox.close();
});
beforeEach(async () => {
  await sandbox.reset();
  proxy.seen.splice(0);
});

const mailroom = (args: string[], tty = false) => runInProcess(args, { env, tty, color: false, columns: 200 });
const send = ['send', '--from', 'ops@example.com', '--to', 'a@example.com', '--subject', 'Hi', '--html', '<p>Hi</p>'];
const keys = async () => (JSON.parse((await mailroom(['keys', 'list', '--json'])).stdout) as { items: Array<{ id: string; displayName: string; role: string }> }).items;

describe('--jq', () => {
  it('prints what jq prints: strings raw, one per line; values compact when piped', async () => {
    await call('POST', `/v1/workspaces/${sandbox.workspaceId}/api-keys`, { displayName: 'deploy "bot"', role: 'EDITOR' });
    const all = await keys();
    const ids = await mailroom(['keys', 'list', '--jq', '.items[].id']);
    expect(ids).toMatchObject({ code: 0, stderr: '' });
    expect(ids.stdout).toBe(all.map((k) => `${k.id}\n`).join(''));
    const objects = await mailroom(['keys', 'list', '--jq', '.items[] | {id, role}']);
    expect(objects.stdout).toBe(all.map((k) => `${JSON.stringify({ id: k.id, role: k.role })}\n`).join(''));
    const names = await mailroom(['keys', 'list', '--jq', '[.items[].displayName] | sort | .[0], length, null, true, ""']);
    expect(names.stdout).toBe(`Sandbox key\n${all.length}\nnull\ntrue\n\n`);
    const quoted = await mailroom(['keys', 'list', '--jq=.items[] | select(.role == "EDITOR") | .displayName']);
    expect(quoted.stdout).toBe('deploy "bot"\n');
    const none = await mailroom(['keys', 'list', '--jq', '.items[] | select(.role == "VIEWER")']);
    expect(none).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('indents values on a terminal (as gh), where the command would otherwise print a table', async () => {
    const [key] = await keys();
    const r = await mailroom(['keys', 'list', '--jq', '.items[0] | {id, role}'], true);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe(`${JSON.stringify({ id: key!.id, role: key!.role }, null, 2)}\n`);
  });

  it('works after --json <fields>, on the fields kept; and on the document of a command that sends (send)', async () => {
    const r = await mailroom(['keys', 'list', '--json', 'id', '--jq', '.items[0] | keys | join(",")']);
    expect(r.stdout).toBe('id\n');
    const sent = await mailroom([...send, '--jq', '.status']);
    expect(sent).toMatchObject({ code: 0, stdout: 'SENT\n', stderr: '' });
    expect(await sandbox.emails()).toHaveLength(1);
  });

  it('a mistake in the expression: jq\'s message, exit 2, before any request (nothing sent)', async () => {
    const r = await mailroom([...send, '--jq', '.status |']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('mailroom: --jq: syntax error, unexpected end of file at <top-level>, line 1, column 9\n      .status |\n              ^\n');
    const undefinedVar = await mailroom([...send, '--jq', '$nope']);
    expect(undefinedVar).toMatchObject({ code: 2, stdout: '' });
    expect(undefinedVar.stderr.split('\n')[0]).toBe('mailroom: --jq: $nope is not defined at <top-level>, line 1, column 1');
    const unknownFn = await mailroom([...send, '--jq', 'nosuch(1)']);
    expect(unknownFn.stderr.split('\n')[0]).toBe('mailroom: --jq: nosuch/1 is not defined at <top-level>, line 1, column 1');
    for (const args of [['--jq', ''], ['--jq', '.a', '--jq', '.b'], ['--jq']]) {
      const bad = await mailroom([...send, ...args]);
      expect(bad.code, args.join(' ')).toBe(2);
    }
    expect(proxy.seen).toEqual([]);
    expect(await sandbox.emails()).toHaveLength(0);
    // Compiled, never run on the way: an expression that would fail on null, or never end, is fine.
    const fine = await mailroom(['keys', 'list', '--jq', '.items[] | .id # a comment']);
    expect(fine.code).toBe(0);
    const endless = await mailroom(['keys', 'list', '--jq', 'if .hasMore then last(range(1e12)) else "done" end']);
    expect(endless).toMatchObject({ code: 0, stdout: 'done\n' });
  });

  it('jq failing on the result (after the work was done): the whole JSON instead, jq\'s message, exit 1', async () => {
    const r = await mailroom([...send, '--jq', '.to[]']);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({ status: 'SENT', to: 'a@example.com' });
    expect(r.stderr).toBe('mailroom: --jq: Cannot iterate over string ("a@example.com")\n  the command\'s whole JSON is printed above instead; it did its work\n');
    expect(await sandbox.emails()).toHaveLength(1);
  });

  it('a command that failed: its error line and exit code, nothing on stdout; a result with its error inside goes through jq', async () => {
    const missing = await mailroom(['webhooks', 'get', 'wh_missing0000000000000000', '--jq', '.id']);
    expect(missing.code).toBe(4);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/^mailroom: /);
  });

  it('secrets stay masked: jq sees the masked document, and its $ENV is not the process environment', async () => {
    const r = await mailroom(['keys', 'list', '--jq', '.items[].secretKey, ($ENV | tostring), (env | tostring)']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(sandbox.apiKey);
    expect(r.stdout).toMatch(/^sk_live_…\w{4}\n/);
    expect(r.stdout).not.toContain('MAILROOM');
  });

  it('commands that print a stream or text refuse it before anything runs (exit 2); api takes it', async () => {
    const r = await mailroom(['webhooks', 'listen', '--port', '0', '--jq', '.']);
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: 'mailroom: --jq: webhooks listen prints no JSON document to filter; pipe its output to jq instead\n' });
    const path = `/v1/workspaces/${sandbox.workspaceId}/api-keys`;
    const whole = JSON.parse((await mailroom(['api', 'GET', path, '--json'])).stdout) as unknown;
    const api = await mailroom(['api', 'GET', path, '--jq', '.']);
    expect(api).toMatchObject({ code: 0, stdout: `${JSON.stringify(whole)}\n`, stderr: '' });
  });
});
