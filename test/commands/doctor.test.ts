import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandContext, type CommandContext } from '../../src/commands/context.js';
import type { Context, Globals } from '../../src/context.js';
import { diagnose as diagnoseIn } from '../../src/commands/shared/diagnose.js';
import { runDoctor as doctorIn } from '../../src/commands/doctor.run.js';
import { runWhoami as whoamiIn } from '../../src/commands/whoami.run.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { noKeychain } from '../helpers/keychain.js';

let sandbox: TestSandbox;
const dirs: string[] = [];
beforeAll(async () => {
  sandbox = await withSandbox();
});
afterAll(async () => {
  await sandbox.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function temp(): string {
  const d = mkdtempSync(join(tmpdir(), 'mailroom-doctor-'));
  dirs.push(d);
  return d;
}

/** A terminal wide enough that no detail wraps (wrapping: test/cli/key-value-widths.test.ts). */
function context(env: Record<string, string>): { ctx: Context; out: () => string } {
  let out = '';
  const sink = Object.assign(new PassThrough(), { write: (s: string) => ((out += s), true) });
  const ctx: Context = {
    io: { out: sink, err: new PassThrough(), in: new PassThrough(), isStdoutTTY: true, isStderrTTY: false, isStdinTTY: false, color: false, outColumns: 1000 },
    env: { MAILROOM_CONFIG_DIR: temp(), MAILROOM_STATE_DIR: temp(), ...env },
    cwd: '/',
    signal: new AbortController().signal,
    keychain: noKeychain,
  };
  return { ctx, out: () => out };
}

/** The command context run() would give the command, its transport closed afterwards as run() does. */
async function inCommandContext<T>(ctx: Context, globals: Globals, fn: (c: CommandContext) => Promise<T>): Promise<T> {
  const cleanups: (() => Promise<void>)[] = [];
  try {
    return await fn(commandContext({ ...ctx, cleanups }, globals));
  } finally {
    await Promise.all(cleanups.map((close) => close()));
  }
}
const runDoctor = (ctx: Context, globals: Globals) => inCommandContext(ctx, globals, doctorIn);
const runWhoami = (ctx: Context, globals: Globals) => inCommandContext(ctx, globals, whoamiIn);
const diagnose = (ctx: Context, globals: Globals) => inCommandContext(ctx, globals, (c) => diagnoseIn(c));

const sandboxEnv = () => ({ MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_BASE_URL: sandbox.baseUrl, MAILROOM_WORKSPACE: sandbox.workspaceId });

describe('mailroom doctor', () => {
  it('against a working sandbox: every line ok or warn, where each setting came from, exit 0', async () => {
    const { ctx, out } = context(sandboxEnv());
    mkdirSync(join(ctx.env.MAILROOM_STATE_DIR as string, 'batches'), { recursive: true });
    writeFileSync(join(ctx.env.MAILROOM_STATE_DIR as string, 'batches', 'a.journal'), '');
    expect(await runDoctor(ctx, {})).toBe(0);
    const text = out();
    expect(text).toMatch(/^ok +mailroom +\d+\.\d+\.\d+/m);
    expect(text).toMatch(new RegExp(`^ok +node +${process.version.replace(/\./g, '\\.')}`, 'm'));
    expect(text).toMatch(/^ok +API key +sk_live_…\w{4} \(environment \(MAILROOM_API_KEY\)\)/m);
    expect(text).toMatch(/^ok +base URL +http:\/\/127\.0\.0\.1:\d+ \(environment \(MAILROOM_BASE_URL\)\)/m);
    expect(text).toMatch(/^ok +profile +default \(default\)/m);
    expect(text).toMatch(/^ok +key check +SUCCEED: Sandbox key, API_USER, workspace wrk_/m);
    expect(text).toMatch(/^ok +reachable +HTTP 200 in \d+ ms/m);
    expect(text).toMatch(/^ok +clock +/m);
    expect(text).toMatch(/^ok +proxy +none/m);
    expect(text).toMatch(/^ok +state dir +.* writable, 1 journal$/m);
    expect(text).not.toMatch(/^fail/m);
    expect(text).not.toContain(sandbox.apiKey);
  });

  it('--json: one object with every check, for CI', async () => {
    const { ctx, out } = context(sandboxEnv());
    expect(await runDoctor(ctx, { json: true })).toBe(0);
    const report = JSON.parse(out()) as { ok: boolean; checks: { name: string; status: string; detail: string; fix?: string }[] };
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => c.name)).toEqual(['mailroom', 'node', 'config file', 'key storage', 'profile', 'API key', 'base URL', 'workspace', 'proxy', 'reachable', 'key check', 'clock', 'state dir']);
  });

  it('a rejected key: fail with the fix, exit 3', async () => {
    const { ctx, out } = context({ ...sandboxEnv(), MAILROOM_API_KEY: 'sk_live_wrongwrongwrongwrong0000' });
    expect(await runDoctor(ctx, {})).toBe(3);
    expect(out()).toMatch(/^fail +key check +.*401.*\n +fix: check MAILROOM_API_KEY/m);
  });

  it('no key at all: fail, exit 3, and the API is not asked', async () => {
    const { ctx, out } = context({ MAILROOM_BASE_URL: sandbox.baseUrl });
    expect(await runDoctor(ctx, {})).toBe(3);
    expect(out()).toMatch(/^fail +API key +none\n +fix: run `mailroom login`/m);
    expect(out()).toMatch(/^warn +workspace +none/m);
  });

  it('an API that cannot be reached: fail, exit 6', async () => {
    const { ctx, out } = context({ ...sandboxEnv(), MAILROOM_BASE_URL: 'http://127.0.0.1:1' });
    expect(await runDoctor(ctx, { maxRetries: 0 })).toBe(6);
    expect(out()).toMatch(/^fail +reachable +.*ECONNREFUSED/m);
  });

  it('a config file others can read: warn with the chmod fix; a proxy and whether the host bypasses it', async () => {
    const { ctx, out } = context({ ...sandboxEnv(), HTTPS_PROXY: 'http://user:secret@proxy.example:3128' });
    const file = join(ctx.env.MAILROOM_CONFIG_DIR as string, 'config.json');
    writeFileSync(file, JSON.stringify({ profiles: { default: { workspace: sandbox.workspaceId } } }));
    chmodSync(file, 0o644);
    expect(await runDoctor(ctx, {})).toBe(0);
    expect(out()).toMatch(new RegExp(`^warn +config file +${file.replace(/[.]/g, '\\.')}: readable by others \\(mode 644\\)\\n +fix: chmod 600 `, 'm'));
    expect(out()).toMatch(/^ok +proxy +HTTPS_PROXY=http:\/\/proxy\.example:3128; 127\.0\.0\.1 is loopback: not proxied/m);
    expect(out()).not.toContain('secret');
  });

  it('a config file that is not JSON: fail naming it, exit 2', async () => {
    const { ctx, out } = context(sandboxEnv());
    writeFileSync(join(ctx.env.MAILROOM_CONFIG_DIR as string, 'config.json'), '{ nope');
    expect(await runDoctor(ctx, {})).toBe(2);
    expect(out()).toMatch(/^fail +config file +.*not valid JSON/m);
  });
});

describe('mailroom whoami', () => {
  it('the identity only: name, role, status, key and where it came from, API, workspace', async () => {
    const { ctx, out } = context(sandboxEnv());
    expect(await runWhoami(ctx, {})).toBe(0);
    expect(out()).toMatch(/^name +Sandbox key$/m);
    expect(out()).toMatch(/^role +API_USER$/m);
    expect(out()).toMatch(/^key from +environment \(MAILROOM_API_KEY\)$/m);
    expect(out()).toMatch(/^workspace +wrk_/m);
    expect(out()).not.toMatch(/clock|proxy|state/);
  });

  it('exits 3 on a rejected key', async () => {
    const { ctx } = context({ ...sandboxEnv(), MAILROOM_API_KEY: 'sk_live_wrongwrongwrongwrong0000' });
    expect(await runWhoami(ctx, {})).toBe(3);
  });
});

it('diagnose is what both print from', async () => {
  const { ctx } = context(sandboxEnv());
  const d = await diagnose(ctx, {});
  expect(d.identity).toMatchObject({ displayName: 'Sandbox key', role: 'API_USER' });
});
