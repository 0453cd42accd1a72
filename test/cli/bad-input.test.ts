import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInProcess } from '../helpers/context.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { recordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';

/**
 * In-process through run() (src/run.ts): the same argv, exit code and streams as the binary.
 * Bad input never reaches the API: every case exits 2 with exactly one line on stderr, nothing on
 * stdout, and the proxy in front of the sandbox sees zero requests.
 */
let sandbox: TestSandbox;
let proxy: RecordingProxy;
let env: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), 'mailroom-bad-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

beforeAll(async () => {
  sandbox = await withSandbox();
  proxy = await recordingProxy(sandbox.baseUrl);
  env = { MAILROOM_BASE_URL: proxy.baseUrl, MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_WORKSPACE: sandbox.workspaceId };
});
afterAll(async () => {
  await proxy.close();
  await sandbox.close();
});

const raw = ['send', '--from', 'ops@example.com', '--to', 'a@example.com', '--subject', 'S', '--html', '<p>x</p>'];
const inDays = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString();

interface Case {
  name: string;
  args: string[];
  stderr: RegExp;
  env?: Record<string, string | undefined>;
  input?: string;
}

const cases: Case[] = [
  // unknown flags and commands
  { name: 'unknown flag on send', args: [...raw, '--bogus'], stderr: /^mailroom: unknown option '--bogus'$/ },
  { name: 'misspelt flag gets a suggestion on the same line', args: ['send', '--fro', 'ops@example.com'], stderr: /^mailroom: unknown option '--fro' \(did you mean --from\?\)$/ },
  { name: 'unknown keys sub-command', args: ['keys', 'lst'], stderr: /^mailroom: unknown command 'lst' \(did you mean list\?\)$/ },
  { name: 'an argument a command does not take', args: ['whoami', 'extra'], stderr: /^mailroom: unexpected argument 'extra': whoami takes none \(mailroom whoami --help\)$/ },
  { name: 'one argument too many', args: ['webhooks', 'get', 'wh_1', 'wh_2'], stderr: /^mailroom: unexpected argument 'wh_2': webhooks get takes one, <wh_id> \(mailroom webhooks get --help\)$/ },
  { name: 'unknown sub-command of a group that runs on its own too', args: ['sandbox', 'workspace', 'lst'], stderr: /^mailroom: unknown command 'lst' \(did you mean list\?\)$/ },
  { name: 'flag without its value', args: ['send', '--to'], stderr: /^mailroom: option '--to <address>' argument missing$/ },
  { name: 'non-numeric --limit', args: ['keys', 'list', '--limit', 'ten'], stderr: /^mailroom: option '--limit <n>' argument 'ten' is invalid\. --limit must be a whole number$/ },
  { name: '--limit out of range', args: ['keys', 'list', '--limit', '500'], stderr: /--limit must be between 1 and 100$/ },
  // missing fields
  { name: 'send with nothing', args: ['send'], stderr: /^mailroom: invalid raw email: from \(--from\) is required; to \(--to\) is required; subject \(--subject\) is required; html \(--html, --html-file or --react\) is required$/ },
  { name: 'raw send without html', args: ['send', '--from', 'ops@example.com', '--to', 'a@example.com', '--subject', 'S'], stderr: /^mailroom: invalid raw email: html \(--html, --html-file or --react\) is required$/ },
  { name: 'templated send without --to', args: ['send', '--template', 'welcome'], stderr: /^mailroom: invalid templated email: to \(--to\) is required$/ },
  { name: 'keys create without --name', args: ['keys', 'create'], stderr: /^mailroom: required option '--name <displayName>' not specified$/ },
  { name: 'keys update with nothing to change', args: ['keys', 'update', 'aki_abc'], stderr: /^mailroom: nothing to update: give --name and\/or --role$/ },
  { name: 'webhooks create without events', args: ['webhooks', 'create', '--url', 'https://h.example.com/'], stderr: /^mailroom: give at least one --event \(CONTACT_CREATED, .*WORKSPACE_TEAM_MEMBER_JOINED\)$/ },
  // bad addresses and values
  { name: 'bad recipient address', args: [...raw.slice(0, 3), '--to', 'not-an-address', '--subject', 'S', '--html', '<p>x</p>'], stderr: /^mailroom: invalid raw email: to \(--to\) must be an email address$/ },
  { name: 'bad sender', args: ['send', '--from', 'Ops <ops-at-example.com>', '--to', 'a@example.com', '--subject', 'S', '--html', 'x'], stderr: /^mailroom: invalid raw email: from \(--from\) must be an email address or "Name <address>"$/ },
  { name: 'bad reply-to', args: [...raw, '--reply-to', 'nobody@'], stderr: /^mailroom: invalid raw email: replyTo \(--reply-to\) must be an email address$/ },
  { name: 'malformed --property', args: [...raw, '--property', 'plan'], stderr: /^mailroom: --property: expected key=value, got "plan"$/ },
  { name: 'template with a raw-only flag', args: ['send', '--template', 'welcome', '--to', 'a@example.com', '--subject', 'S'], stderr: /^mailroom: --subject cannot be used with --template/ },
  { name: '--html and --html-file together', args: [...raw, '--html-file', 'x.html'], stderr: /^mailroom: --html and --html-file cannot be used together$/ },
  { name: '--var without a template', args: [...raw, '--var', 'a=b'], stderr: /^mailroom: --var needs --template/ },
  { name: 'invalid key role', args: ['keys', 'create', '--name', 'x', '--role', 'GOD'], stderr: /^mailroom: --role "GOD" is not one of API_USER, EDITOR, VIEWER$/ },
  { name: 'webhook URL that is not http(s)', args: ['webhooks', 'create', '--url', 'ftp://h.example.com/', '--event', 'CONTACT_CREATED'], stderr: /^mailroom: --url: "ftp:\/\/h\.example\.com\/" is not an http\(s\) URL$/ },
  { name: 'bad --save-as profile name', args: ['keys', 'create', '--name', 'x', '--save-as', 'no spaces'], stderr: /^mailroom: --save-as: "no spaces" is not a profile name/ },
  // dates
  { name: 'send-at not a date', args: [...raw, '--send-at', 'tomorrow'], stderr: /^mailroom: --send-at: "tomorrow" is not ISO 8601 with a time zone/ },
  { name: 'send-at without a zone', args: [...raw, '--send-at', '2030-01-01T09:00:00'], stderr: /^mailroom: --send-at: "2030-01-01T09:00:00" needs a time zone \(Z or \+hh:mm\)$/ },
  { name: 'send-at in the past', args: [...raw, '--send-at', '2020-01-01T00:00:00Z'], stderr: /^mailroom: --send-at: 2020-01-01T00:00:00\.000Z is in the past$/ },
  { name: 'send-at beyond 90 days', args: [...raw, '--send-at', '+91d'], stderr: /^mailroom: --send-at: .* is more than 90 days ahead/ },
  { name: 'sendAt in a --file beyond the horizon', args: ['send', '--file', '-'], input: JSON.stringify({ from: 'ops@example.com', to: 'a@example.com', subject: 'S', html: 'x', sendAt: inDays(100) }), stderr: /^mailroom: sendAt: .* is more than 90 days ahead/ },
  // bad JSON
  { name: '--vars not JSON', args: ['send', '--template', 'welcome', '--to', 'a@example.com', '--vars', '{name: Ada}'], stderr: /^mailroom: --vars: not valid JSON at line 1, column 2: expected a property name in double quotes, found "n"$/ },
  { name: '--vars an array', args: ['send', '--template', 'welcome', '--to', 'a@example.com', '--vars', '["a"]'], stderr: /^mailroom: --vars: must be a JSON object, got an array$/ },
  { name: '--file with broken JSON', args: ['send', '--file', '-'], input: '{"to": "a@example.com",', stderr: /^mailroom: --file \(stdin\): not valid JSON at line 1, column 24: unexpected end of input$/ },
  { name: '--file with an unknown field', args: ['send', '--file', '-'], input: JSON.stringify({ from: 'ops@example.com', to: 'a@example.com', subject: 'S', html: 'x', colour: 'red' }), stderr: /^mailroom: invalid raw email: unknown field colour$/ },
  { name: '--props not JSON', args: ['send', '--react', 'test/fixtures/react/Welcome.tsx', '--props', 'name=Ada', '--from', 'ops@example.com', '--to', 'a@example.com', '--subject', 'S'], stderr: /^mailroom: --props: not valid JSON at line 1, column 1: unexpected "n"$/ },
  { name: '--file that does not exist', args: ['send', '--file', '/nonexistent/email.json'], stderr: /^mailroom: --file: cannot read \/nonexistent\/email\.json: no such file$/ },
  { name: '--vars-file of bad JSON', args: ['send', '--template', 'welcome', '--to', 'a@example.com', '--vars-file', file('bad.json', '{oops')], stderr: /^mailroom: --vars-file \S+bad\.json: not valid JSON at line 1, column 2: expected a property name in double quotes, found "o"$/ },
  // unknown events
  { name: 'unknown event on create', args: ['webhooks', 'create', '--url', 'https://h.example.com/', '--event', 'EMAIL_OPENED'], stderr: /^mailroom: unknown event EMAIL_OPENED; valid: CONTACT_CREATED, CONTACT_UPDATED, CONTACT_UNSUBSCRIBED, CONTACT_RESUBSCRIBED, CONTACT_DELETED, WORKSPACE_TEAM_MEMBER_JOINED$/ },
  { name: 'unknown events on update', args: ['webhooks', 'update', 'wh_abc', '--event', 'CONTACT_CREATED,FOO,BAR'], stderr: /^mailroom: unknown events FOO, BAR; valid: / },
  // wrong id prefixes
  { name: 'keys update with a webhook id', args: ['keys', 'update', 'wh_abc', '--name', 'x'], stderr: /^mailroom: "wh_abc" is not an API key id: expected aki_\.\.\.$/ },
  { name: 'keys delete with a bare id', args: ['keys', 'delete', '12345', '--yes'], stderr: /^mailroom: "12345" is not an API key id: expected aki_\.\.\.$/ },
  { name: 'keys rotate with a wrong prefix', args: ['keys', 'rotate', 'key_abc'], stderr: /^mailroom: "key_abc" is not an API key id: expected aki_\.\.\.$/ },
  { name: 'webhooks get with a key id', args: ['webhooks', 'get', 'aki_abc'], stderr: /^mailroom: "aki_abc" is not a webhook id: expected wh_\.\.\.$/ },
  { name: 'webhooks delete with a bad id', args: ['webhooks', 'delete', 'wh_', '--yes'], stderr: /^mailroom: "wh_" is not a webhook id: expected wh_\.\.\.$/ },
  // workspace and confirmation
  { name: 'keys list without a workspace', args: ['keys', 'list'], env: { MAILROOM_WORKSPACE: undefined }, stderr: /^mailroom: no workspace: pass --workspace <wrk_id>, set MAILROOM_WORKSPACE, or store one in the profile/ },
  { name: 'keys create with a malformed workspace', args: ['keys', 'create', '--name', 'x', '--workspace', 'acme'], stderr: /^mailroom: workspace "acme" \(from --workspace\) is not a workspace id: expected wrk_\.\.\.$/ },
  { name: 'keys delete without --yes and no terminal', args: ['keys', 'delete', 'aki_abc'], stderr: /^mailroom: refusing to delete aki_abc without --yes \(no terminal to confirm on\)$/ },
  { name: 'webhooks delete without --yes and no terminal', args: ['webhooks', 'delete', 'wh_abc'], stderr: /^mailroom: refusing to delete wh_abc without --yes \(no terminal to confirm on\)$/ },
  { name: 'keys create -q would lose the secret', args: ['keys', 'create', '--name', 'x', '-q'], stderr: /^mailroom: -q would discard the new secret \(it is shown only once\): add --save-as <profile> or drop -q$/ },
  // an empty file name (an unset shell variable) is named as such, not read as the current directory
  { name: 'send --html-file with an empty name', args: ['send', '--from', 'ops@example.com', '--to', 'a@example.com', '--subject', 'S', '--html-file', ''], stderr: /^mailroom: --html-file: the file name is empty$/ },
  { name: 'api --input with an empty name', args: ['api', 'POST', '/v1/webhooks', '--input', ''], stderr: /^mailroom: --input: the file name is empty$/ },
  { name: 'api --data @ with no file name', args: ['api', 'POST', '/v1/webhooks', '--data', '@'], stderr: /^mailroom: --data: the file name is empty$/ },
  { name: 'api with an empty path', args: ['api', 'DELETE', ''], stderr: /^mailroom: path is empty: give one such as \/v1\/webhooks$/ },
  { name: 'lint with an empty file name', args: ['lint', ''], stderr: /^mailroom: lint: the file name is empty$/ },
  // a key that cannot be one (a blank shell variable, a pasted line break) is refused, never sent
  { name: '--api-key that is blank', args: ['keys', 'list', '--api-key', '   '], stderr: /^mailroom: --api-key: the API key is blank$/ },
  { name: '--api-key holding a line break', args: ['keys', 'list', '--api-key', 'sk_live_abc\ndef'], stderr: /^mailroom: --api-key: the API key holds a space, a line break or a control character$/ },
  { name: '--api-key-file with an empty name', args: ['keys', 'list', '--api-key-file', ''], stderr: /^mailroom: --api-key-file: the file name is empty$/ },
  { name: 'webhooks listen --write-env with an empty name', args: ['webhooks', 'listen', '--port', '0', '--token', 'wht_emptynametest12345', '--write-env', ''], stderr: /^mailroom: --write-env: the file name is empty$/ },
];

describe('bad input: exit 2, one line on stderr, nothing on stdout, zero requests', () => {
  it('has at least 25 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
  });

  it.each(cases)('$name', async (c) => {
    const before = proxy.seen.length;
    const r = await runInProcess(c.args, { env: { ...env, ...c.env }, ...(c.input === undefined ? {} : { input: c.input }) });
    expect(r.stdout).toBe('');
    expect(r.stderr.endsWith('\n')).toBe(true);
    expect(r.stderr.slice(0, -1)).not.toContain('\n');
    expect(r.stderr.trimEnd()).toMatch(c.stderr);
    expect(r.code).toBe(2);
    expect(proxy.seen.slice(before)).toEqual([]);
  });

  it('--json "" (an unset shell variable): the field-list error, as one JSON document on stdout too, not "too many arguments"', async () => {
    const before = proxy.seen.length;
    const r = await runInProcess(['keys', 'list', '--json', ''], { env });
    const message = '--json: the field list is empty: give field names (--json id,displayName), or --json alone for every field';
    expect(r).toEqual({ code: 2, stdout: `${JSON.stringify({ error: { kind: 'usage', message, exitCode: 2 } })}\n`, stderr: `mailroom: ${message}\n` });
    expect(proxy.seen.slice(before)).toEqual([]);
  });

  it('the sandbox caught no email at all', async () => {
    expect(await sandbox.emails()).toEqual([]);
    expect(proxy.seen).toEqual([]);
  });
});
