import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli, spawnCli } from '../helpers/cli.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';

// The loop a developer runs: `mailroom webhooks listen --register --exec 'node app.js'` against the
// sandbox. The app verifies every signature with the token it was given in its environment, and
// after the stop the printed command replays exactly what the app did not take.

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await withSandbox();
});
afterAll(() => sandbox.close());

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

const records = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { body: string; valid: boolean });
const emailOf = (body: string) => (JSON.parse(body) as { data: { contact: { email: string } } }).data.contact.email;

describe("webhooks listen --register --exec 'node app.js'", () => {
  it('the app gets the token, verifies every delivery with it, is stopped with the listener; the printed command replays what it refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-exec-e2e-'));
    copyFileSync(fileURLToPath(new URL('../fixtures/webhook-app.mjs', import.meta.url)), join(dir, 'app.mjs'));
    const port = await freePort();
    const forwardTo = `http://127.0.0.1:${port}/hook`;
    const record = join(dir, 'received.ndjson');
    const env = cliEnv({ MAILROOM_BASE_URL: sandbox.baseUrl, MAILROOM_API_KEY: sandbox.apiKey, APP_PORT: String(port), APP_RECORD: record, APP_REFUSE: 'refuse-me' });
    const listen = spawnCli(['webhooks', 'listen', '--register', '--port', '0', '--json', '--journal', 'j.ndjson', '--forward-to', forwardTo, '--exec', 'node app.mjs'], { cwd: dir, env, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    listen.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    listen.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((r) => listen.on('exit', (code) => r(code)));
    try {
      await expect.poll(() => stderr, { timeout: 15_000 }).toContain('app ready\n');
      const ready = JSON.parse(stdout.split('\n')[0]!) as { token: string; webhookId: string };
      expect(ready.token).toMatch(/^wht_/);

      const emails = ['ada@example.com', 'refuse-me@example.com', 'grace@example.com', 'lin@example.com'];
      for (const email of emails) {
        await fetch(`${sandbox.baseUrl}/_sandbox/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event: 'CONTACT_CREATED', email }) });
        await expect.poll(() => stdout, { timeout: 10_000 }).toMatch(new RegExp(`${email.replace('.', '\\.')}.*"forward"`));
      }
      listen.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stderr).toContain('app stopped\n');
      expect(stderr).toContain('Stopped: 4 requests received; 1 failed to forward; still in the journal\n');
      expect(records(record).map((r) => [emailOf(r.body), r.valid])).toEqual(emails.map((e) => [e, true]));
      // The token is printed once (the ready line), nowhere else.
      expect((stdout + stderr).split(ready.token), stdout + stderr).toHaveLength(2);

      const command = /^ {2}to forward them: mailroom (webhooks replay .*)$/m.exec(stderr)?.[1];
      expect(command).toBe(`webhooks replay --journal j.ndjson --lines 2 --forward-to ${forwardTo}`);
      expect(stderr).toContain('  (with MAILROOM_WEBHOOK_TOKEN set to the signing token shown at start)\n');

      // The app, fixed (no APP_REFUSE), started again by hand with the token it was shown.
      const again = join(dir, 'again.ndjson');
      const app = spawn(process.execPath, ['app.mjs'], { cwd: dir, env: { ...env, APP_REFUSE: '', APP_RECORD: again, MAILROOM_WEBHOOK_TOKEN: ready.token }, stdio: ['ignore', 'pipe', 'inherit'] });
      try {
        await new Promise<void>((r) => app.stdout.once('data', () => r()));
        const replay = await runCli(command!.split(' '), { cwd: dir, env: { MAILROOM_WEBHOOK_TOKEN: ready.token } });
        expect(replay.code, replay.stderr).toBe(0);
        expect(records(again).map((r) => [emailOf(r.body), r.valid])).toEqual([['refuse-me@example.com', true]]);
      } finally {
        app.kill('SIGTERM');
      }
      const deliveries = await sandbox.deliveries();
      expect(deliveries.map((d) => d.statusCode)).toEqual([200, 200, 200, 200]);
    } finally {
      if (listen.exitCode === null) listen.kill('SIGKILL');
    }
  });
});

/** Whether a process of this pid is alive (signal 0 checks without signalling). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('webhooks listen --exec: the app does not outlive its listener', () => {
  // SIGKILL gives the listener no chance to stop the app itself: what ends the app then must not
  // depend on the listener running any code.
  it.each(['SIGKILL', 'SIGTERM'] as const)('the listener gets %s: the app (and what its shell started) ends too', async (signal) => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-exec-orphan-'));
    const pidFile = join(dir, 'app.pid');
    // The app ignores SIGTERM for a while, as a slow-stopping server might: only a SIGKILL after the grace ends it quickly.
    const app = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); process.on('SIGTERM', () => setTimeout(() => process.exit(0), 200)); setInterval(() => {}, 1000);`;
    const listen = spawnCli(['webhooks', 'listen', '--port', '0', '--forward-to', 'http://127.0.0.1:9/hook', '--stop-timeout', '1000', '--exec', `${JSON.stringify(process.execPath)} -e ${JSON.stringify(app)}`], {
      cwd: dir,
      env: cliEnv({ MAILROOM_WEBHOOK_TOKEN: 'wht_orphantestorphantestorphan01' }),
      stdio: 'pipe',
    });
    let stderr = '';
    listen.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<void>((r) => listen.on('exit', () => r()));
    let pid: number | undefined;
    try {
      await expect.poll(() => (pid = Number(readPid(pidFile)) || undefined), { timeout: 15_000 }).toBeGreaterThan(0);
      expect(alive(pid!), stderr).toBe(true);
      listen.kill(signal);
      await exited;
      await expect.poll(() => alive(pid!), { timeout: 10_000, interval: 50 }).toBe(false);
    } finally {
      if (listen.exitCode === null && listen.signalCode === null) listen.kill('SIGKILL');
      if (pid !== undefined && alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });
});

function readPid(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
