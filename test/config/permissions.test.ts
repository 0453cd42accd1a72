import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requireApiKey, resolveSettings } from '../../src/config/settings.js';
import { privateStateDir } from '../../src/batch/paths.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mailroom-perms-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const mode = (path: string) => statSync(path).mode & 0o777;

function stderrCtx(env: Record<string, string>) {
  const err = new PassThrough();
  let text = '';
  err.on('data', (d: Buffer) => (text += d.toString()));
  return { ctx: { env, io: { err } }, stderr: () => text };
}

describe('a config file others can read', () => {
  it('holding a key: tightened to 0600 with one warning naming it, and no warning the next time', () => {
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ profiles: { default: { apiKey: 'sk_live_0123456789abcdef' } } }), { mode: 0o644 });
    chmodSync(file, 0o644);
    const first = stderrCtx({ MAILROOM_CONFIG_DIR: dir });
    expect(resolveSettings(first.ctx, {}).apiKey?.value).toBe('sk_live_0123456789abcdef');
    expect(first.stderr()).toBe(`mailroom: warning: ${file} holds an API key and was readable by other users; its mode is now 0600\n`);
    expect(mode(file)).toBe(0o600);
    const second = stderrCtx({ MAILROOM_CONFIG_DIR: dir });
    resolveSettings(second.ctx, {});
    expect(second.stderr()).toBe('');
  });

  it('holding no key: left as it is', () => {
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ profiles: { default: { workspace: 'wrk_1' } } }));
    chmodSync(file, 0o644);
    const run = stderrCtx({ MAILROOM_CONFIG_DIR: dir });
    resolveSettings(run.ctx, {});
    expect(run.stderr()).toBe('');
    expect(mode(file)).toBe(0o644);
  });
});

describe('a config directory anyone can write to', () => {
  it('is refused as the source of a key (exit 3, naming the directory), but a key from the environment still works', () => {
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { apiKey: 'sk_live_0123456789abcdef', workspace: 'wrk_1' } } }), { mode: 0o600 });
    chmodSync(dir, 0o777);
    const settings = resolveSettings({ env: { MAILROOM_CONFIG_DIR: dir } }, {});
    expect(() => requireApiKey(settings)).toThrow(expect.objectContaining({ kind: 'authentication', message: `refusing the API key stored in ${join(dir, 'config.json')}: its directory ${dir} is writable by other users` }));
    expect(settings.workspace?.value).toBe('wrk_1');
    const fromEnv = resolveSettings({ env: { MAILROOM_CONFIG_DIR: dir, MAILROOM_API_KEY: 'sk_live_fromenvfromenv1' } }, {});
    expect(requireApiKey(fromEnv)).toBe('sk_live_fromenvfromenv1');
  });
});

describe('state directories', () => {
  it('are created 0700, and tightened when they exist looser', () => {
    const state = join(dir, 'state');
    const batches = privateStateDir({ XDG_STATE_HOME: state });
    expect(batches).toBe(join(state, 'mailroom', 'batches'));
    expect(mode(join(state, 'mailroom'))).toBe(0o700);
    expect(mode(batches)).toBe(0o700);
    chmodSync(join(state, 'mailroom'), 0o755);
    chmodSync(batches, 0o775);
    privateStateDir({ XDG_STATE_HOME: state });
    expect(mode(join(state, 'mailroom'))).toBe(0o700);
    expect(mode(batches)).toBe(0o700);
  });

  it('MAILROOM_STATE_DIR: its batches directory is private, the directory itself is the user\'s own', () => {
    const own = join(dir, 'own');
    mkdirSync(own, { mode: 0o755 });
    chmodSync(own, 0o755);
    privateStateDir({ MAILROOM_STATE_DIR: own });
    expect(mode(own)).toBe(0o755);
    expect(mode(join(own, 'batches'))).toBe(0o700);
  });
});
