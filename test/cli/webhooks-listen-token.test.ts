import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, startInProcess, type InProcessCommand } from '../helpers/context.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { startApp } from '../webhook/helpers/test-app.js';

// The signing token an app needs when `webhooks listen --register` makes the webhook: shown once,
// given with --token, written with --write-env, handed to the app --exec starts. And the tokens
// listen and verify refuse. The whole loop as a process is in test/e2e/webhooks-exec.test.ts.

const APP = fileURLToPath(new URL('../fixtures/webhook-app.mjs', import.meta.url));
let sb: TestSandbox;
const running: InProcessCommand[] = [];
beforeAll(async () => {
  sb = await withSandbox();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((l) => l.stop()));
});
afterAll(() => sb.close());

const apiEnv = () => ({ MAILROOM_BASE_URL: sb.baseUrl, MAILROOM_API_KEY: sb.apiKey });

function listen(args: string[], env: Record<string, string> = {}) {
  const run = startInProcess(['webhooks', 'listen', '--port', '0', ...args], { env: { ...apiEnv(), ...env } });
  running.push(run);
  return run;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

const trigger = (email: string) =>
  fetch(`${sb.baseUrl}/_sandbox/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event: 'CONTACT_CREATED', email }) });

describe('webhooks listen --register: the signing token in hand', () => {
  it('a new token is shown once, in the ready line (--json: its JSON ready line only), and masked in everything after', async () => {
    const run = listen(['--register', '--json']);
    const ready = JSON.parse(await run.waitForLine((l) => l.includes('"ready"'))) as { token: string; webhookId: string };
    expect(ready.token).toMatch(/^wht_[A-Za-z0-9_-]{32}$/);
    const hook = (await (await fetch(`${sb.baseUrl}/v1/webhooks/${ready.webhookId}`, { headers: { authorization: `Bearer ${sb.apiKey}` } })).json()) as { webhook: { token: string } };
    expect(hook.webhook.token).toBe(ready.token);
    expect(run.stderr()).toContain('; signing token in the ready line on stdout; Ctrl-C to stop\n');
    await trigger('ada@example.com');
    await run.waitForLine((l) => l.includes('ada@example.com'));
    const stopped = await run.stop();
    expect((stopped.stdout + stopped.stderr).split(ready.token)).toHaveLength(2);

    const human = listen(['--register']);
    const line = await human.waitForErrLine((l) => l.startsWith('Ready'));
    const token = /signing token (wht_\S+) \(shown once\); Ctrl-C to stop$/.exec(line)?.[1];
    expect(token).toMatch(/^wht_[A-Za-z0-9_-]{32}$/);
    await trigger('bob@example.com');
    await human.waitForLine((l) => l.includes('bob@example.com'));
    const done = await human.stop();
    expect((done.stdout + done.stderr).split(token!)).toHaveLength(2);
  });

  it('--token with --register: the webhook is made with it and the app verifying with it gets every delivery', async () => {
    const token = 'wht_myOwnRegisterToken42';
    const app = await startApp(token);
    try {
      const run = listen(['--register', '--token', token, '--forward-to', app.url]);
      await run.waitForErrLine((l) => l.startsWith('Ready'));
      expect(run.stderr()).not.toContain('signing token');
      await trigger('grace@example.com');
      await run.waitForLine((l) => l.includes('grace@example.com'));
      expect(app.received.map((r) => r.signatureValid)).toEqual([true]);
      expect((await run.stop()).stderr).not.toContain(token);
    } finally {
      await app.close();
    }
  });

  it('--write-env: MAILROOM_WEBHOOK_TOKEN=<token> in the file, mode 0600, its other lines kept; the replay command reads it back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-env-'));
    const envFile = join(dir, '.env');
    writeFileSync(envFile, 'PORT=3000\nMAILROOM_WEBHOOK_TOKEN=wht_staleFromLastRun00\nDEBUG=1', { mode: 0o644 });
    const journal = join(dir, 'j.ndjson');
    const run = listen(['--register', '--write-env', envFile, '--json', '--journal', journal, '--forward-to', 'http://127.0.0.1:9/down']);
    const { token } = JSON.parse(await run.waitForLine((l) => l.includes('"ready"'))) as { token: string };
    expect(readFileSync(envFile, 'utf8')).toBe(`PORT=3000\nMAILROOM_WEBHOOK_TOKEN=${token}\nDEBUG=1`);
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    expect(run.stderr()).toContain(`; signing token in the ready line on stdout, also in ${envFile}; Ctrl-C to stop`);
    await trigger('lin@example.com');
    await run.waitForLine((l) => l.includes('connection refused'));
    const stopped = await run.stop();
    const command = /^ {2}to forward them: (mailroom webhooks replay .*)$/m.exec(stopped.stderr)?.[1];
    expect(command).toBe(`mailroom webhooks replay --journal ${journal} --lines 1 --forward-to http://127.0.0.1:9/down --token-file ${envFile}`);
    const app = await startApp(token);
    try {
      const replay = await runInProcess(command!.replace(/^mailroom /, '').replace('http://127.0.0.1:9/down', app.url).split(' '));
      expect(replay.code, replay.stderr).toBe(0);
      expect(app.received.map((r) => r.signatureValid)).toEqual([true]);
    } finally {
      await app.close();
    }
  });

  it('--write-env to a place it cannot write, an empty --exec, or --exec without --forward-to: exit 2, one line, before anything is registered', async () => {
    const noDir = await runInProcess(['webhooks', 'listen', '--port', '0', '--register', '--write-env', '/nonexistent-dir-for-mailroom/.env'], { env: apiEnv() });
    expect(noDir).toEqual({ code: 2, stdout: '', stderr: 'mailroom: --write-env: cannot write /nonexistent-dir-for-mailroom/.env: no such directory\n' });
    // A directory is a place it cannot write, whatever step finds it (the file's other lines are read first).
    const aDir = await runInProcess(['webhooks', 'listen', '--port', '0', '--register', '--write-env', tmpdir()], { env: apiEnv() });
    expect(aDir).toEqual({ code: 2, stdout: '', stderr: `mailroom: --write-env: cannot write ${tmpdir()}: is a directory\n` });
    const empty = await runInProcess(['webhooks', 'listen', '--port', '0', '--token', 'wht_execEmptyToken001', '--forward-to', 'http://127.0.0.1:9/hook', '--exec', ' '], { env: apiEnv() });
    expect(empty).toEqual({ code: 2, stdout: '', stderr: 'mailroom: --exec: the command to start your app is empty\n' });
    const nowhere = await runInProcess(['webhooks', 'listen', '--port', '0', '--register', '--exec', 'node app.js'], { env: apiEnv() });
    expect(nowhere).toEqual({ code: 2, stdout: '', stderr: 'mailroom: --exec starts your app; add --forward-to with the URL it receives webhooks on (e.g. http://localhost:3000/webhooks)\n' });
  });

  it('-q with a new token and nothing to keep it: exit 2 before anything is registered; --webhook with it: exit 2', async () => {
    const quiet = await runInProcess(['webhooks', 'listen', '--port', '0', '--register', '-q'], { env: apiEnv() });
    expect(quiet.code).toBe(2);
    expect(quiet.stderr).toBe('mailroom: -q would discard the new webhook token (it is shown only once): add --write-env <file> or --exec <command>, or pass --token-file\n');
    const webhook = await runInProcess(['webhooks', 'listen', '--port', '0', '--register', '--webhook', 'wh_abc'], { env: apiEnv() });
    expect(webhook.code).toBe(2);
    expect(webhook.stderr).toMatch(/^mailroom: --register creates its own webhook: drop --webhook/);
    const hooks = (await (await fetch(`${sb.baseUrl}/v1/webhooks`, { headers: { authorization: `Bearer ${sb.apiKey}` } })).json()) as { webhooks: { items: unknown[] } };
    expect(hooks.webhooks.items).toEqual([]);
  });
});

describe('webhooks listen --exec', () => {
  it("starts the app with the token in its environment, forwards to it, and stops it with the listener", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-exec-'));
    const record = join(dir, 'received.ndjson');
    const port = await freePort();
    const run = listen(['--register', '--json', '--forward-to', `http://127.0.0.1:${port}/hook`, '--exec', `"${process.execPath}" ${APP}`], {
      PATH: process.env.PATH ?? '',
      APP_PORT: String(port),
      APP_RECORD: record,
    });
    await run.waitForErrLine((l) => l === 'app ready');
    for (const email of ['a@example.com', 'b@example.com']) {
      await trigger(email);
      expect(await run.waitForLine((l) => l.includes(email))).toContain('"status":200');
    }
    const stopped = await run.stop();
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain('app stopped\n');
    expect(stopped.stderr).toContain('Stopped: 2 requests received\n');
    const got = readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { valid: boolean });
    expect(got.map((g) => g.valid)).toEqual([true, true]);
  });

  it('deliveries that come before the app listens wait for it (a refused connection is tried again while it starts)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-exec-'));
    const record = join(dir, 'received.ndjson');
    const port = await freePort();
    const run = listen(['--register', '--json', '--forward-to', `http://127.0.0.1:${port}/hook`, '--exec', `"${process.execPath}" ${APP}`], {
      PATH: process.env.PATH ?? '',
      APP_PORT: String(port),
      APP_RECORD: record,
      APP_DELAY_MS: '700',
    });
    await run.waitForLine((l) => l.includes('"ready"'));
    await trigger('early@example.com');
    expect(await run.waitForLine((l) => l.includes('early@example.com'))).toContain('"status":200');
    expect(run.errLines).toContain('app ready');
    const stopped = await run.stop();
    expect(stopped.stderr).toContain('Stopped: 1 request received\n');
    expect(readFileSync(record, 'utf8')).toContain('early@example.com');
  });

  it('an app that exits stops the listener, saying so (exit 1 when it failed)', async () => {
    const run = listen(['--token', 'wht_execExitToken0001', '--forward-to', 'http://127.0.0.1:9/hook', '--exec', 'echo starting; exit 3'], { PATH: process.env.PATH ?? '' });
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toContain('starting\n');
    expect(run.stderr()).toContain('mailroom: your app (--exec) exited with code 3; the listener stopped with it\n');
  });
});

describe('webhooks listen and verify: tokens that cannot be one', () => {
  const cases: Array<[string, string[], Record<string, string>, string]> = [
    ['--token " "', ['--token', ' '], {}, '--token: the signing token is empty or only whitespace'],
    ['--token a', ['--token', 'a'], {}, '--token: the signing token is too short (1 characters; at least 8)'],
    ["--token $'\\t\\n'", ['--token', '\t\n'], {}, '--token: the signing token is empty or only whitespace'],
    ['--token with a space inside', ['--token', 'wht_abc defghij'], {}, '--token: the signing token contains whitespace; a token is one word (wht_…)'],
    ['MAILROOM_WEBHOOK_TOKEN=" "', [], { MAILROOM_WEBHOOK_TOKEN: ' ' }, 'MAILROOM_WEBHOOK_TOKEN: the signing token is empty or only whitespace'],
    ['MAILROOM_WEBHOOK_TOKEN=short', [], { MAILROOM_WEBHOOK_TOKEN: 'short' }, 'MAILROOM_WEBHOOK_TOKEN: the signing token is too short (5 characters; at least 8)'],
  ];
  it.each(cases)('listen %s: exit 2, one line, nothing listening', async (_name, args, env, message) => {
    const res = await runInProcess(['webhooks', 'listen', '--port', '0', ...args], { env });
    expect(res).toEqual({ code: 2, stdout: '', stderr: `mailroom: ${message}\n` });
  });
  it('webhooks create --token of 8 spaces or with a space inside: exit 2, nothing created (listen would refuse the token)', async () => {
    for (const [token, why] of [
      ['        ', 'is empty or only whitespace'],
      ['wht_abc defghij', 'contains whitespace; a token is one word (wht_…)'],
    ]) {
      const res = await runInProcess(['webhooks', 'create', '--url', 'http://127.0.0.1:9/x', '--event', 'CONTACT_CREATED', '--token', token!], { env: apiEnv() });
      expect(res).toEqual({ code: 2, stdout: '', stderr: `mailroom: --token: the signing token ${why}\n` });
    }
    const hooks = (await (await fetch(`${sb.baseUrl}/v1/webhooks`, { headers: { authorization: `Bearer ${sb.apiKey}` } })).json()) as { webhooks: { items: unknown[] } };
    expect(hooks.webhooks.items).toEqual([]);
  });

  it.each(cases)('verify %s: exit 2, one line', async (_name, args, env, message) => {
    const res = await runInProcess(['webhooks', 'verify', '--signature', 'a'.repeat(64), '--payload', '-', ...args], { env, input: '{}' });
    expect(res).toEqual({ code: 2, stdout: '', stderr: `mailroom: ${message}\n` });
  });
});
