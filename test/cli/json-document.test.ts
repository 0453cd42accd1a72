import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JSON_FIELDS } from '../../src/commands/shared/json-fields.js';
import { sign } from '../../src/webhook/signature.js';
import { runInProcess, type InProcessResult } from '../helpers/context.js';
import { recordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

/**
 * With --json, stdout is exactly one JSON document whatever happens (docs/input-and-output.md):
 * the result; the result with its error inside when the command failed after having one; or
 * `{"error": {...}}` alone. Field names are checked before any request.
 */
let sandbox: TestSandbox;
let proxy: RecordingProxy;
let env: Record<string, string>;
let dir: string;
let call: ReturnType<typeof client>;

beforeAll(async () => {
  sandbox = await withSandbox();
  proxy = await recordingProxy(sandbox.baseUrl);
  call = client(sandbox);
  dir = mkdtempSync(join(tmpdir(), 'mailroom-json-doc-'));
  env = {
    MAILROOM_BASE_URL: proxy.baseUrl,
    MAILROOM_API_KEY: sandbox.apiKey,
    MAILROOM_WORKSPACE: sandbox.workspaceId,
    MAILROOM_STATE_DIR: join(dir, 'state'),
    MAILROOM_WEBHOOK_TOKEN: TOKEN,
  };
  writeFileSync(join(dir, 'two.ndjson'), `${JSON.stringify({ to: 'a@example.com' })}\n${JSON.stringify({ to: 'b@example.com' })}\n`);
  // The second entry is refused by the API (an unverified sender): a run with a failure, exit 7.
  writeFileSync(join(dir, 'one-bad.ndjson'), `${JSON.stringify({ to: 'a@example.com' })}\n${JSON.stringify({ to: 'b@example.com', from: 'x@unverified.test' })}\n`);
  // Inputs of their own: a run of an input already sent is refused (exit 2) before it could fail otherwise.
  for (const name of ['disk', 'stop']) writeFileSync(join(dir, `${name}.ndjson`), `${JSON.stringify({ to: `${name}@example.com` })}\n`);
  writeFileSync(join(dir, 'body.json'), BODY);
  writeFileSync(join(dir, 'email.json'), JSON.stringify({ from: 'ops@example.com', to: 'a@example.com', subject: 'Hi', html: '<p>Hi</p>', text: 'Hi' }));
  writeFileSync(join(dir, 'bad-email.json'), JSON.stringify({ from: 'ops@example.com', to: 'a@example.com', subject: 'Hi', html: '<p>Hi <a href="javascript:alert(1)">x</a><img src="a.png"></p>' }));
});
afterAll(async () => {
  await proxy.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => void proxy.seen.splice(0));

const TOKEN = 'wht_documenttoken123';
const BODY = '{"event":"CONTACT_CREATED","createdAt":"2026-11-23T10:00:00.000Z","data":{"email":"a@example.com"}}';

const mailroom = (args: string[], opts: { input?: string; configDir?: string } = {}): Promise<InProcessResult> =>
  runInProcess(args, { env, cwd: dir, ...opts });

/** stdout as one JSON document: JSON.parse of the whole of it fails on two. */
function oneDocument(r: InProcessResult): Record<string, unknown> {
  let doc: unknown;
  expect(() => (doc = JSON.parse(r.stdout)), `stdout is not one JSON document:\n${r.stdout}`).not.toThrow();
  expect(typeof doc === 'object' && doc !== null && !Array.isArray(doc), `not an object: ${r.stdout}`).toBe(true);
  return doc as Record<string, unknown>;
}

/** Every field a command prints is one `--json <fields>` may name (an embedded error aside). */
function expectDeclaredFields(path: string, doc: Record<string, unknown>): void {
  const declared = JSON_FIELDS[path];
  expect(declared, `${path} is not in JSON_FIELDS`).toBeTruthy();
  const objects = Array.isArray(doc.items) ? (doc.items as Record<string, unknown>[]) : [doc];
  for (const item of objects) {
    const extra = Object.keys(item).filter((k) => k !== 'error' && !declared!.includes(k));
    expect(extra, `${path} prints fields --json cannot name`).toEqual([]);
  }
}

const newKey = async () => (await call('POST', `/v1/workspaces/${sandbox.workspaceId}/api-keys`, { displayName: 'doc', role: 'API_USER' })).body.apiKey.id as string;
const newHook = async () => (await call('POST', '/v1/webhooks', { url: 'https://h.example.com/in', events: ['CONTACT_CREATED'] })).body.webhook.id as string;
const newEmail = async () => (await call('POST', '/v1/emails', { from: 'ops@example.com', to: 'a@example.com', subject: 'Hi', html: '<p>Hi</p>' })).body.email.id as string;

type Args = () => Promise<string[]> | string[];

/** Each command that prints a JSON result: how to run it so that it succeeds (its path is JSON_FIELDS' key). */
const SUCCESS: [path: string, args: Args][] = [
  ['send', () => ['send', '--from', 'ops@example.com', '--to', 'a@example.com', '--subject', 'Hi', '--html', '<p>Hi</p>']],
  ['batch', () => ['batch', 'two.ndjson', '--from', 'ops@example.com', '--subject', 'Hi', '--html-file', 'body.json']],
  ['batch journals list', () => ['batch', 'journals']],
  ['batch journals show', async () => ['batch', 'journals', 'show', (JSON.parse((await mailroom(['batch', 'journals', '--json'])).stdout) as { items: { runId: string }[] }).items[0]!.runId]],
  ['batch journals prune', () => ['batch', 'journals', 'prune', '--all', '--dry-run']],
  ['lint', () => ['lint', '--file', 'email.json']],
  ['check', () => ['check']],
  ['whoami', () => ['whoami']],
  ['keys list', () => ['keys', 'list']],
  ['keys create', () => ['keys', 'create', '--name', 'doc']],
  ['keys update', async () => ['keys', 'update', await newKey(), '--name', 'renamed']],
  ['keys rotate', async () => ['keys', 'rotate', await newKey(), '--yes']],
  ['keys delete', async () => ['keys', 'delete', await newKey(), '--yes']],
  ['webhooks list', () => ['webhooks', 'list']],
  ['webhooks get', async () => ['webhooks', 'get', await newHook()]],
  ['webhooks create', () => ['webhooks', 'create', '--url', 'https://h.example.com/in', '--event', 'CONTACT_CREATED']],
  ['webhooks update', async () => ['webhooks', 'update', await newHook(), '--event', 'CONTACT_DELETED']],
  ['webhooks delete', async () => ['webhooks', 'delete', await newHook(), '--yes']],
  ['webhooks events', () => ['webhooks', 'events']],
  ['webhooks verify', () => ['webhooks', 'verify', '--signature', sign(TOKEN, BODY), '--payload', 'body.json']],
  ['sandbox emails', () => ['sandbox', 'emails']],
  ['sandbox email', async () => ['sandbox', 'email', await newEmail()]],
  ['sandbox deliveries', () => ['sandbox', 'deliveries']],
  ['sandbox trigger', () => ['sandbox', 'trigger', 'CONTACT_CREATED']],
  ['sandbox wait', async () => (await newEmail(), ['sandbox', 'wait', '--to', 'a@example.com'])],
  ['sandbox workspace', () => ['sandbox', 'workspace']],
  ['sandbox workspace create', () => ['sandbox', 'workspace', 'create', '--name', 'doc']],
  ['sandbox workspace delete', async () => ['sandbox', 'workspace', 'delete', (await call('POST', '/_sandbox/workspaces', {})).body.workspaceId as string]],
  ['config list', () => ['config', 'list']],
  ['config get', () => ['config', 'get', 'base-url']],
  ['config path', () => ['config', 'path']],
  ['profiles', () => ['profiles']],
  ['logout', () => ['logout']],
];

/** The lists: every one is `{ items: [...], hasMore }` (docs/input-and-output.md, "Lists"). */
const LISTS = new Set(['batch journals list', 'keys list', 'webhooks list', 'webhooks events', 'sandbox emails', 'sandbox deliveries', 'sandbox wait', 'sandbox workspace', 'config list', 'profiles']);

describe('one JSON document: success', () => {
  it.each(SUCCESS)('%s --json: its result, every field one --json may name', async (path, args) => {
    const r = await mailroom([...(await args()), '--json']);
    // No error line (notes and warnings carry their own word after the prefix).
    expect(r.stderr.match(/^mailroom: (?!note: |warning: ).*$/m)?.[0]).toBeUndefined();
    expect(r.code).toBe(0);
    const doc = oneDocument(r);
    expect(doc.error).toBeUndefined();
    expectDeclaredFields(path, doc);
    if (LISTS.has(path)) expect(doc).toMatchObject({ items: expect.any(Array), hasMore: expect.any(Boolean) });
  });

  it("api GET --json: the API's answer as it came, one document", async () => {
    const r = await mailroom(['api', 'GET', '/v1/webhooks', '--json']);
    expect(r.code).toBe(0);
    expect(oneDocument(r)).toMatchObject({ webhooks: expect.anything() });
  });

  it('send --dry-run --json: the email it would send, one document', async () => {
    const r = await mailroom(['send', '--from', 'ops@example.com', '--to', 'a@example.com', '--subject', 'Hi', '--html', '<p>Hi</p>', '--dry-run', '--json']);
    expect(r.code).toBe(0);
    expectDeclaredFields('send', oneDocument(r));
    expect(proxy.seen).toEqual([]);
  });

  it('doctor and login --json: one document', async () => {
    const doctor = await mailroom(['doctor', '--json']);
    expectDeclaredFields('doctor', oneDocument(doctor));
    const cfg = mkdtempSync(join(dir, 'cfg-'));
    const login = await mailroom(['login', '--api-key-stdin', '--json'], { input: sandbox.apiKey, configDir: cfg });
    expect(login.code).toBe(0);
    expectDeclaredFields('login', oneDocument(login));
  });
});

/** Failures before any result: stdout is the error alone, exit code as documented. */
const FAILURE: [name: string, args: Args, code: number][] = [
  ['send without --from', () => ['send', '--to', 'a@example.com', '--subject', 'Hi', '--html', '<p>Hi</p>'], 2],
  ['send from an unverified sender', () => ['send', '--from', 'x@unverified.test', '--to', 'a@example.com', '--subject', 'Hi', '--html', '<p>Hi</p>'], 4],
  ['batch of a missing file', () => ['batch', 'nope.ndjson', '--from', 'ops@example.com'], 2],
  ['check with a revoked key', () => ['check', '--api-key', 'sk_live_notakeyatall0000'], 3],
  ['keys update of an unknown key', () => ['keys', 'update', 'aki_nosuchkey', '--name', 'x'], 4],
  ['keys delete of an unknown key', () => ['keys', 'delete', 'aki_nosuchkey', '--yes'], 4],
  ['webhooks get of an unknown webhook', () => ['webhooks', 'get', 'wh_nosuchhook'], 4],
  ['webhooks create with a bad URL', () => ['webhooks', 'create', '--url', 'ftp://x', '--event', 'CONTACT_CREATED'], 2],
  ['sandbox email of an unknown id', () => ['sandbox', 'email', 'trs_nope'], 4],
  ['config get of an unknown key', () => ['config', 'get', 'nope'], 2],
  ['api GET of an unknown path', () => ['api', 'GET', '/v1/nope'], 4],
  ['an unknown command', () => ['nope'], 2],
];

describe('one JSON document: failure', () => {
  it.each(FAILURE)('%s: {"error": {...}} alone, with the exit code', async (_name, args, code) => {
    const r = await mailroom([...(await args()), '--json']);
    expect(r.code).toBe(code);
    const doc = oneDocument(r);
    expect(Object.keys(doc)).toEqual(['error']);
    expect(doc.error).toMatchObject({ kind: expect.any(String), message: expect.any(String), exitCode: code });
    expect(r.stderr).toMatch(/^mailroom: /);
  });
});

describe('one JSON document: a partial result carries its error inside it', () => {
  it('batch with a refused entry: the summary, error kind "partial" inside, exit 7', async () => {
    const r = await mailroom(['batch', 'one-bad.ndjson', '--from', 'ops@example.com', '--subject', 'Hi', '--html-file', 'body.json', '--json']);
    expect(r.code).toBe(7);
    const doc = oneDocument(r);
    expect(doc).toMatchObject({ total: 2, sent: 1, failed: 1, error: { kind: 'partial', message: '1 of 2 emails failed', exitCode: 7 } });
  });

  it('batch stopped by a full disk (--report /dev/full): the summary with the storage error inside, exit 9', async () => {
    const r = await mailroom(['batch', 'disk.ndjson', '--from', 'ops@example.com', '--subject', 'Hi', '--html-file', 'body.json', '--report', '/dev/full', '--json']);
    expect(r.code).toBe(9);
    const doc = oneDocument(r);
    expect(doc).toMatchObject({ total: expect.any(Number), error: { kind: 'storage', exitCode: 9, message: expect.stringMatching(/^cannot write \/dev\/full: no space left on device/) } });
    expect(doc.resume).toEqual(expect.stringContaining('--resume'));
  });

  it('webhooks verify with a wrong signature: the verdict with the error inside, exit 8', async () => {
    const r = await mailroom(['webhooks', 'verify', '--signature', sign('wht_someoneelses1234', BODY), '--payload', 'body.json', '--json']);
    expect(r.code).toBe(8);
    expect(oneDocument(r)).toMatchObject({ valid: false, reason: expect.any(String), error: { kind: 'signature', exitCode: 8 } });
  });

  it('doctor and whoami without a valid key: their report with the failed check as the error inside, exit 3', async () => {
    for (const cmd of ['doctor', 'whoami']) {
      const r = await mailroom([cmd, '--json', '--api-key', 'sk_live_notakeyatall0000']);
      expect(r.code).toBe(3);
      expect(oneDocument(r)).toMatchObject({ error: { kind: 'auth', exitCode: 3, message: expect.stringMatching(/^key check: HTTP 401/) } });
    }
  });

  it('lint with findings at --fail-on: the report with the error inside, exit 10', async () => {
    const r = await mailroom(['lint', '--file', 'bad-email.json', '--fail-on', 'info', '--json']);
    expect(r.code).toBe(10);
    expect(oneDocument(r)).toMatchObject({ ok: false, error: { kind: 'checks', exitCode: 10, message: expect.stringMatching(/^findings at or above --fail-on info: /) } });
  });

  it('batch interrupted (Ctrl-C): the summary with the interrupted error inside, exit 130', async () => {
    const r = await runInProcess(['batch', 'stop.ndjson', '--from', 'ops@example.com', '--subject', 'Hi', '--html-file', 'body.json', '--json'], { env, cwd: dir, signal: AbortSignal.abort() });
    expect(r.code).toBe(130);
    expect(oneDocument(r)).toMatchObject({ interrupted: true, error: { kind: 'interrupted', exitCode: 130 } });
  });
});

/** Every command with fields, run as it would succeed, but with a bad field: refused before any request. */
describe('--json field names are checked before any request', () => {
  const withFields = SUCCESS.filter(([path]) => JSON_FIELDS[path]);
  it.each(withFields)('%s --json nope, --json <field>,nope: the field error naming the valid fields, exit 2, nothing sent', async (path, args) => {
    const given = await args();
    proxy.seen.splice(0);
    const fields = JSON_FIELDS[path] as readonly string[];
    const valid = fields.join(', ');
    // lint takes any number of inputs: a lone word after --json is one of them, so only a list is a field list there.
    for (const list of path === 'lint' ? [`${fields[0]},nope`] : ['nope', `${fields[0]},nope`]) {
      const r = await mailroom([...given, '--json', list]);
      expect(r.stderr).toBe(`mailroom: --json: unknown field "nope"; valid fields: ${valid}\n`);
      expect(r.code).toBe(2);
      expect(oneDocument(r)).toEqual({ error: { kind: 'usage', message: `--json: unknown field "nope"; valid fields: ${valid}`, exitCode: 2 } });
    }
    expect(proxy.seen).toEqual([]);
  });

  it('check --json nope: the field error, not "too many arguments"', async () => {
    const r = await mailroom(['check', '--json', 'nope']);
    expect(r.stderr).toBe(`mailroom: --json: unknown field "nope"; valid fields: ${(JSON_FIELDS.check as string[]).join(', ')}\n`);
    expect(r.code).toBe(2);
    expect(proxy.seen).toEqual([]);
  });

  it('--json before the operand (webhooks get --json nope wh_1) and a known field word without a comma (whoami --json workspace)', async () => {
    const hook = await newHook();
    proxy.seen.splice(0);
    const r = await mailroom(['webhooks', 'get', '--json', 'nope', hook]);
    expect(r.stderr).toMatch(/^mailroom: --json: unknown field "nope"; valid fields: id, /);
    expect(proxy.seen).toEqual([]);
    const ws = await mailroom(['whoami', '--json', 'workspace']);
    expect(ws.code).toBe(0);
    expect(oneDocument(ws)).toEqual({ workspace: sandbox.workspaceId });
    const key = await mailroom(['config', 'get', '--json', 'workspace']);
    expect(oneDocument(key)).toMatchObject({ key: 'workspace', value: sandbox.workspaceId });
  });

  it('a command with no fields to pick refuses a field list before any request', async () => {
    const r = await mailroom(['api', 'GET', '/v1/webhooks', '--json', 'id,url']);
    expect(r.stderr).toBe('mailroom: --json id,url: api prints no fields to pick from; use --json alone and pipe the answer to jq\n');
    expect(r.code).toBe(2);
    expect(proxy.seen).toEqual([]);
  });

  it('every command of the tree is in JSON_FIELDS', async () => {
    const { buildProgram, loadProgram } = await import('../../src/program.js');
    await loadProgram();
    const { fakeContext } = await import('../helpers/context.js');
    const { commandPath } = await import('../../src/commands/shared/json-fields.js');
    const paths: string[] = [];
    const walk = (cmd: Command) => {
      for (const sub of cmd.commands) {
        if (sub.commands.length === 0 || (sub as unknown as { _actionHandler: unknown })._actionHandler) paths.push(commandPath(sub));
        walk(sub);
      }
    };
    walk(buildProgram(fakeContext().ctx));
    expect(paths.filter((p) => !(p in JSON_FIELDS))).toEqual([]);
    expect(Object.keys(JSON_FIELDS).filter((p) => !paths.includes(p))).toEqual([]);
  });
});

describe('--json holds what the table shows', () => {
  it('send --send-at +2h --json: sendAt, the time the table shows as "in 2 hours"', async () => {
    const before = Date.now();
    const r = await mailroom(['send', '--from', 'ops@example.com', '--to', 'a@example.com', '--subject', 'Hi', '--html', '<p>Hi</p>', '--send-at', '+2h', '--json']);
    expect(r.code).toBe(0);
    const doc = oneDocument(r);
    expect(doc).toMatchObject({ status: 'SCHEDULED', sendAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    const at = Date.parse(doc.sendAt as string);
    expect(at).toBeGreaterThanOrEqual(before + 2 * 3600_000 - 1000);
    expect(at).toBeLessThanOrEqual(Date.now() + 2 * 3600_000 + 1000);
    const table = await runInProcess(['send', '--from', 'ops@example.com', '--to', 'a@example.com', '--subject', 'Hi', '--html', '<p>Hi</p>', '--send-at', '+2h', '--no-color'], { env, cwd: dir, tty: 'stdout' });
    expect(table.stdout).toMatch(/^send at +in 2 hours \(/m);
  });

  it.each([
    ['keys', newKey],
    ['webhooks', newHook],
  ] as const)('%s delete: the deleted object without its former "ACTIVE" status, isDeleted true; the table says deleted', async (group, make) => {
    const json = await mailroom([group, 'delete', await make(), '--yes', '--json']);
    expect(json.code).toBe(0);
    const doc = oneDocument(json);
    expect(doc.status).toBeUndefined();
    expect(doc.isDeleted).toBe(true);
    const table = await runInProcess([group, 'delete', await make(), '--yes', '--no-color'], { env, cwd: dir, tty: 'stdout' });
    expect(table.code).toBe(0);
    expect(table.stdout).not.toMatch(/^status /m);
    expect(table.stdout).toMatch(/^deleted +yes$/m);
  });
});
