import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';

/**
 * The README tour as a person follows it: a sandbox in one terminal, other terminals (separate
 * bash processes) pointed at it with the one line it prints, a restart in the middle.
 */
let dir: string;
let env: Record<string, string>;
let port: number;
const children: ChildProcess[] = [];

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  const { port: p } = probe.address() as { port: number };
  await new Promise<void>((r) => probe.close(() => r()));
  return p;
}

/** A terminal: one bash process running `script`, `mailroom` on its PATH, nothing exported but the machine's basics. */
function shell(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A long-running terminal: resolves once its stderr or stdout shows `ready`. */
function background(script: string, ready: RegExp): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn('bash', ['-c', script], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready within 20 s:\n${output}`)), 20_000);
    const seen = (d: Buffer) => {
      output += d.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve({ child, output: () => output });
      }
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.on('exit', (code) => reject(new Error(`exited ${code} before it was ready:\n${output}`)));
  });
}

const stop = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', (code) => resolve(code));
    child.kill('SIGINT');
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mailroom-tour-'));
  const bin = join(dir, '.bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'mailroom'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'mailroom'), 0o755);
  mkdirSync(join(dir, 'home'));
  env = {
    PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: join(dir, 'home'),
    MAILROOM_CONFIG_DIR: join(dir, 'config'),
    MAILROOM_STATE_DIR: join(dir, 'state'),
    NO_COLOR: '1',
  };
  port = await freePort();
});
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('the README tour in several terminals', () => {
  it('each terminal points itself at the sandbox with one line; a restart keeps the key, so exported terminals go on working', async () => {
    const base = `http://127.0.0.1:${port}`;
    // Terminal 1: the sandbox.
    const first = await background(`exec mailroom sandbox --port ${port}`, /Press Ctrl-C to stop/);
    expect(first.output()).toContain(`or, in any terminal: eval "$(mailroom sandbox env --base-url ${base})"`);
    const recorded = join(dir, 'state', 'sandboxes', `${port}.json`);
    expect(statSync(recorded).mode & 0o777).toBe(0o600);

    // Terminal 2: point it, send, look at what the sandbox caught.
    const two = await shell(`eval "$(mailroom sandbox env)"
mailroom send --from 'Acme <ops@example.com>' --to ada@example.com --subject 'Your report' --html '<p>Ready.</p>' -q
mailroom sandbox emails --last 1 --json
echo "key=$MAILROOM_API_KEY workspace=$MAILROOM_WORKSPACE"`);
    expect(two.stderr).toBe(`mailroom: the sandbox at ${base} (pid ${first.child.pid}, workspace ${/workspace=(\S+)/.exec(two.stdout)?.[1]}); with eval, this shell's mailroom commands go there\n`);
    expect(two.code).toBe(0);
    expect(two.stdout).toMatch(/"to": "ada@example.com"/);
    const key = /key=(\S+)/.exec(two.stdout)![1]!;
    const workspace = /workspace=(\S+)/.exec(two.stdout)![1]!;
    expect(key).toMatch(/^sk_live_/);

    // Terminal 3: a listener registered with the sandbox; terminal 2 makes an event happen.
    const listener = await background(`eval "$(mailroom sandbox env)"; exec mailroom webhooks listen --register --port 0`, /Ready: listening/);
    const trigger = await shell(`eval "$(mailroom sandbox env)"; mailroom sandbox trigger CONTACT_CREATED --email grace@example.com`);
    expect(trigger.code).toBe(0);
    await expect.poll(() => listener.output(), { timeout: 10_000 }).toContain('CONTACT_CREATED');
    expect(await stop(listener.child)).toBe(130);

    // The sandbox stops: nothing to point at, and nothing is printed to eval.
    expect(await stop(first.child)).toBe(130);
    const none = await shell('mailroom sandbox env');
    expect(none.code).toBe(6);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain(`mailroom: no running sandbox recorded in ${join(dir, 'state', 'sandboxes')}`);

    // Restarted on the same port: the same key and workspace, so terminal 2's exported values still work.
    const again = await background(`exec mailroom sandbox --port ${port}`, /Press Ctrl-C to stop/);
    expect(again.output()).toContain(`(the key and workspace of the sandbox last run on port ${port}: terminals pointed at it keep working)`);
    expect(again.output()).toContain(`API key    ${key}`);
    const old = await shell(`export MAILROOM_BASE_URL=${base} MAILROOM_API_KEY=${key} MAILROOM_WORKSPACE=${workspace}
mailroom send --from ops@example.com --to lin@example.com --subject Hi --html '<p>Hi</p>' -q
mailroom keys list --json > /dev/null`);
    expect(old.stderr).toBe('');
    expect(old.code).toBe(0);
    expect(await stop(again.child)).toBe(130);
  });

  it('a terminal with nothing configured is never pointed anywhere by itself: without the eval, send refuses for want of a key', async () => {
    const r = await shell(`mailroom send --from ops@example.com --to ada@example.com --subject Hi --html '<p>Hi</p>'`);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
  });
});
