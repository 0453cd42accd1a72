import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { runInProcess, startInProcess, type InProcessResult } from '../helpers/context.js';
import { echoServer, STRAY_KEY, STRAY_TOKEN, type EchoServer } from '../helpers/echo-server.js';

/**
 * Issue 10's "done means": every command, run against an API that echoes the bearer token and every
 * webhook token in every field of every answer (success and error bodies, headers), prints and
 * writes none of them: not on stdout, not on stderr, not in any file it wrote (reports, --failed,
 * journals). The key and token in use have no known shape, so only "the secrets this run holds"
 * can catch them; the stray ones are caught by their shape.
 */
const KEY = 'mr-own-key-Qz81aPl3vX0cR7';
const TOKEN = 'hook-own-token-7Hq2Lx9pW4';
const SECRETS = [KEY, TOKEN, STRAY_KEY, STRAY_TOKEN];

let sandbox: TestSandbox;
let root: string;
let webhookId: string;
let keyId: string;

beforeAll(async () => {
  sandbox = await withSandbox();
  root = mkdtempSync(join(tmpdir(), 'mailroom-echo-'));
  const call = client(sandbox);
  webhookId = (await call('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['CONTACT_CREATED'] })).body.webhook.id;
  keyId = (await call('POST', `/v1/workspaces/${sandbox.workspaceId}/api-keys`, { displayName: 'victim', role: 'API_USER' })).body.apiKey.id;
});
afterAll(async () => {
  await sandbox.close();
  rmSync(root, { recursive: true, force: true });
});

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

const sign = (body: string, token: string) => createHmac('sha256', token).update(body).digest('hex');

describe.each([
  { name: 'success answers', mode: { kind: 'ok' } as const },
  { name: '401 answers', mode: { kind: 'error', status: 401 } as const },
  { name: '500 answers', mode: { kind: 'error', status: 500 } as const },
])('an API echoing the secrets in $name', ({ name, mode }) => {
  let echo: EchoServer;
  beforeAll(async () => {
    echo = await echoServer(sandbox.baseUrl, sandbox.apiKey, [TOKEN]);
    echo.mode = mode;
  });
  afterAll(() => echo.close());

  it('never gets one printed or written, by any command', async () => {
    const dir = join(root, name.replace(/\W+/g, '-'));
    const work = join(dir, 'work');
    const config = join(dir, 'config');
    mkdirSync(work, { recursive: true });
    mkdirSync(config, { recursive: true });
    const env = {
      MAILROOM_BASE_URL: echo.baseUrl,
      MAILROOM_API_KEY: KEY,
      MAILROOM_WORKSPACE: sandbox.workspaceId,
      MAILROOM_WEBHOOK_TOKEN: TOKEN,
      XDG_STATE_HOME: join(dir, 'state'),
      HOME: join(dir, 'home'),
    };
    writeFileSync(join(work, 'email.json'), JSON.stringify({ from: 'you@example.com', to: 'a@example.com', subject: 'Hi', html: '<p>Hi</p>' }));
    writeFileSync(join(work, 'emails.ndjson'), ['a@example.com', 'b@example.com'].map((to) => JSON.stringify({ from: 'you@example.com', to, subject: 'Hi', html: '<p>Hi</p>' })).join('\n') + '\n');
    const payload = JSON.stringify({ type: 'CONTACT_CREATED', data: { email: 'a@example.com', note: SECRETS.join(' ') } });
    writeFileSync(join(work, 'payload.json'), payload);

    const runs: { args: string[]; result: InProcessResult }[] = [];
    const run = async (args: string[], input?: string) => {
      const result = await runInProcess([...args, '--max-retries', '0'], { configDir: config, cwd: work, env, ...(input === undefined ? {} : { input }) });
      runs.push({ args, result });
      return result;
    };

    const listenAndReplay = async () => {
      // The listener: a good and a bad delivery, both carrying the secrets, journalled, then replayed.
      const journal = join(work, 'deliveries.ndjson');
      const listen = startInProcess(['webhooks', 'listen', '--port', '0', '--journal', journal, '--json'], { configDir: config, env });
      const ready = JSON.parse(await listen.waitForLine((l) => l.includes('"ready"'), 60_000)) as { url: string };
      for (const signature of [sign(payload, TOKEN), 'cd'.repeat(32)]) {
        await fetch(`${ready.url}/hook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-smashsend-signature': signature, authorization: `Bearer ${KEY}` }, body: payload });
      }
      const stopped = await listen.stop();
      runs.push({ args: ['webhooks', 'listen'], result: stopped });
      await run(['webhooks', 'replay', '--journal', journal, '--forward-to', `${echo.baseUrl}/hook`]);
    };
    const inUsePort = new URL(echo.baseUrl).port;
    // Independent lanes run side by side; each lane's commands in order (a later one uses what an earlier one did).
    const lanes: (() => Promise<unknown>)[][] = [
      [() => run(['check']), () => run(['check', '--json']), () => run(['check', '--verbose']), () => run(['sandbox', 'trigger', 'CONTACT_CREATED', '--email', 'a@example.com'])],
      [() => run(['login', '--api-key-stdin', '--profile', 'saved'], KEY), () => run(['config', 'list', '--profile', 'saved', '--json']), () => run(['config', 'get', 'api-key', '--profile', 'saved']), () => run(['profiles', '--json'])],
      [() => run(['send', '--from', 'you@example.com', '--to', 'a@example.com', '--subject', 'Hi', '--html', '<p>Hi</p>']), () => run(['send', '--file', 'email.json', '--json']), () => run(['api', 'GET', '/v1/api-keys/check']), () => run(['api', 'GET', `/v1/webhooks/${webhookId}`]), () => run(['api', 'POST', '/v1/emails', '--data', '@email.json'])],
      [() => run(['batch', 'emails.ndjson', '--report', 'report.ndjson', '--failed', 'failed.ndjson', '--json']), () => run(['batch', 'emails.ndjson', '--resume', 'run.journal'])],
      [() => run(['keys', 'list']), () => run(['keys', 'list', '--json']), () => run(['keys', 'update', keyId, '--name', 'renamed', '--json']), () => run(['keys', 'create', '--name', 'new', '--json']), () => run(['keys', 'rotate', keyId, '--yes', '--json'])],
      [
        () => run(['webhooks', 'list']),
        () => run(['webhooks', 'get', webhookId]),
        () => run(['webhooks', 'get', webhookId, '--json']),
        () => run(['webhooks', 'update', webhookId, '--event', 'CONTACT_DELETED', '--json']),
        () => run(['webhooks', 'listen', '--webhook', webhookId, '--port', inUsePort]),
        () => run(['webhooks', 'create', '--url', 'http://127.0.0.1:9/other', '--event', 'CONTACT_CREATED', '--json']),
        () => run(['webhooks', 'delete', webhookId, '--yes']),
      ],
      [
        () => run(['webhooks', 'events']),
        () => run(['webhooks', 'sample', 'CONTACT_CREATED']),
        () => run(['webhooks', 'verify', '--signature', 'ab'.repeat(32), '--payload', 'payload.json']),
        () => run(['webhooks', 'verify', '--signature', sign(payload, TOKEN), '--payload', 'payload.json', '--json']),
        listenAndReplay,
      ],
    ];
    // One command at a time: in-process runs share the process's secret registry (src/secrets.ts),
    // which separate processes never do.
    for (const lane of lanes) for (const step of lane) await step();

    // The commands really met the server: the key reached it, and in ok mode the basics succeeded.
    expect(echo.bearers.has(KEY)).toBe(true);
    if (mode.kind === 'ok') {
      for (const ok of [['check'], ['send', '--file', 'email.json', '--json'], ['keys', 'list', '--json'], ['webhooks', 'get', webhookId, '--json']]) {
        const found = runs.find((r) => r.args.join(' ') === ok.join(' '));
        expect(found?.result.code, `${ok.join(' ')}: ${found?.result.stderr}`).toBe(0);
      }
      // ... and the one display of a new key or token is still whole.
      const created = (first: string) => {
        const found = runs.find((r) => r.args.slice(0, 2).join(' ') === first && r.args.includes('--json'));
        expect(found?.result.code, `${first}: ${found?.result.stderr}`).toBe(0);
        return JSON.parse(found?.result.stdout ?? '{}') as Record<string, string>;
      };
      expect(created('keys create').secretKey).toMatch(/^sk_live_[A-Za-z0-9]{20,}$/);
      expect(created('keys rotate').secretKey).toMatch(/^sk_live_[A-Za-z0-9]{20,}$/);
      expect(created('webhooks create').token).toMatch(/^wht_[A-Za-z0-9]{20,}$/);
    }

    // The batch journal's directories, made by mailroom, are the user's alone.
    for (const made of [join(dir, 'state', 'mailroom'), join(dir, 'state', 'mailroom', 'batches')]) expect(statSync(made).mode & 0o777).toBe(0o700);

    const leaks: string[] = [];
    for (const { args, result } of runs) {
      for (const [stream, text] of [['stdout', result.stdout], ['stderr', result.stderr]] as const) {
        for (const secret of SECRETS) if (text.includes(secret)) leaks.push(`${args.join(' ')} (exit ${result.code}): ${stream} shows ${secret}:\n${text}`);
      }
    }
    const inputs = ['email.json', 'emails.ndjson', 'payload.json'].map((f) => join(work, f));
    for (const file of filesUnder(dir)) {
      if (file === join(config, 'config.json') || inputs.includes(file)) continue; // the store holds the key by design
      const text = readFileSync(file, 'utf8');
      for (const secret of SECRETS) if (text.includes(secret)) leaks.push(`${file} holds ${secret}`);
    }
    expect(leaks).toEqual([]);
  }, 240_000);
});
