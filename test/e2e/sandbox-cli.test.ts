import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/context.js';

// What only a process shows: SIGTERM and SIGINT, a restart from --data, one sandbox per --data file
// across processes. The sandbox's HTTP behaviour, banner, faults and bad input run in-process in
// test/cli/sandbox-cli.test.ts.

interface Ready {
  baseUrl: string;
  apiKey: string;
  workspaceId: string;
}

interface Running {
  child: ChildProcessWithoutNullStreams;
  ready: Ready;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Spawns `mailroom sandbox ... --json` and resolves with the one JSON line it prints when ready. */
function startCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Running> {
  const child = spawnCli(['sandbox', '--port', '0', '--json', ...args], { env: { ...process.env, NO_COLOR: '1', ...env } });
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`sandbox did not start: ${err}`)), 20_000);
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolvePromise({ child, ready: JSON.parse(out.split('\n')[0]!) as Ready, stdout: () => out, stderr: () => err, exited });
      }
    });
    void exited.then((code) => reject(new Error(`sandbox exited ${code}: ${err}`)));
  });
}

describe('mailroom sandbox --json', () => {
  let sandbox: Running;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mailroom-cli-'));
    sandbox = await startCli(['--api-key', 'sk_live_cliTestKey0001', '--data', join(dir, 'state.json')]);
  });
  afterAll(async () => {
    if (sandbox.child.exitCode === null) sandbox.child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  test('SIGTERM stops it with exit 0 and the state saved to --data', async () => {
    await fetch(`${sandbox.ready.baseUrl}/v1/emails`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.ready.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ from: 'a@example.com', to: 'b@customer.test', subject: 'kept', html: '<p>x</p>' }),
    });
    sandbox.child.kill('SIGTERM');
    expect(await sandbox.exited).toBe(0);
    const saved = JSON.parse(await readFile(join(dir, 'state.json'), 'utf8'));
    expect(saved.workspace.id).toBe(sandbox.ready.workspaceId);
    expect(saved.emails.map((e: { subject: string }) => e.subject)).toEqual(['kept']);

    const again = await startCli(['--data', join(dir, 'state.json')]);
    try {
      expect(again.ready.workspaceId).toBe(sandbox.ready.workspaceId);
      expect(again.ready.apiKey).toBe('sk_live_cliTestKey0001');
    } finally {
      // Ctrl-C exits 130 as every command does, after saving; SIGTERM (above) exits 0.
      again.child.kill('SIGINT');
      expect(await again.exited).toBe(130);
    }
  });
});

describe('mailroom sandbox --data: one sandbox per file', () => {
  test('a second sandbox on the same --data file exits 2 with one line naming the first; nothing of the first is touched', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-lock-'));
    const data = join(dir, 'state.json');
    const first = await startCli(['--data', data]);
    try {
      const before = await readFile(data, 'utf8');
      // The second one in this test's own process: another pid than the first, as a second terminal would be.
      const second = await runInProcess(['sandbox', '--port', '0', '--data', data], { env: { NO_COLOR: '1' } });
      expect(second.code).toBe(2);
      expect(second.stdout).toBe('');
      const lines = second.stderr.trim().split('\n');
      expect(lines[0]).toMatch(new RegExp(`^mailroom: --data .*state\\.json is in use by another mailroom sandbox \\(pid ${first.child.pid}, started `));
      expect(await readFile(data, 'utf8')).toBe(before);
      expect((await fetch(`${first.ready.baseUrl}/v1/api-keys/check`, { headers: { authorization: `Bearer ${first.ready.apiKey}` } })).status).toBe(200);
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('mailroom sandbox: config file and flags', () => {
  test('config keys from the file apply and flags override them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-cli-'));
    try {
      const file = join(dir, 'config.json');
      await writeFile(file, JSON.stringify({ verifiedDomains: ['acme.test'], faults: { errorRate: 1 } }));
      const sb = await startCli(['--config', file, '--error-rate', '0']);
      try {
        const send = (from: string) =>
          fetch(`${sb.ready.baseUrl}/v1/emails`, {
            method: 'POST',
            headers: { authorization: `Bearer ${sb.ready.apiKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ from, to: 'b@customer.test', subject: 's', html: 'h' }),
          });
        expect((await send('a@acme.test')).status).toBe(200);
        expect((await send('a@example.com')).status).toBe(400);
      } finally {
        sb.child.kill('SIGTERM');
        expect(await sb.exited).toBe(0);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

});
