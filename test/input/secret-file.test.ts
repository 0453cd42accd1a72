import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requireApiKey, resolveSettings } from '../../src/config/settings.js';
import { tokenFrom } from '../../src/webhook/token.js';
import { PassThrough, Readable } from 'node:stream';
import { runCommandLine } from '../../src/program.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mailroom-secret-file-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('secrets from files instead of argv (visible to other local users in ps)', () => {
  it('--api-key-file: the key from the file (trailing newline dropped), source flag', () => {
    const file = join(dir, 'key');
    writeFileSync(file, 'sk_live_fromfilefromfile0001\n');
    const s = resolveSettings({ env: { MAILROOM_CONFIG_DIR: dir, MAILROOM_API_KEY: 'sk_live_envenvenv' } }, { apiKeyFile: file });
    expect(s.apiKey).toEqual({ value: 'sk_live_fromfilefromfile0001', source: 'flag', origin: '--api-key-file' });
    expect(requireApiKey(s)).toBe('sk_live_fromfilefromfile0001');
  });

  it('--api-key-file: with --api-key, missing, or empty: a usage error naming it', () => {
    const env = { MAILROOM_CONFIG_DIR: dir };
    const empty = join(dir, 'empty');
    writeFileSync(empty, '\n');
    expect(() => resolveSettings({ env }, { apiKey: 'sk_live_x', apiKeyFile: empty })).toThrow(expect.objectContaining({ kind: 'validation', message: 'use --api-key or --api-key-file, not both' }));
    expect(() => resolveSettings({ env }, { apiKeyFile: join(dir, 'nope') })).toThrow(expect.objectContaining({ kind: 'validation', message: `--api-key-file: cannot read ${join(dir, 'nope')}: no such file` }));
    expect(() => resolveSettings({ env }, { apiKeyFile: empty })).toThrow(expect.objectContaining({ kind: 'validation', message: `--api-key-file: ${empty} is empty` }));
  });

  it('--api-key-file /dev/zero or a huge file: refused after a few KiB, not read to the end', () => {
    const env = { MAILROOM_CONFIG_DIR: dir };
    const big = join(dir, 'big');
    writeFileSync(big, 'k'.repeat(100_000));
    expect(() => resolveSettings({ env }, { apiKeyFile: '/dev/zero' })).toThrow(expect.objectContaining({ kind: 'validation', message: '--api-key-file: /dev/zero is larger than 64 KiB; expected the secret alone' }));
    expect(() => resolveSettings({ env }, { apiKeyFile: big })).toThrow(expect.objectContaining({ kind: 'validation', message: `--api-key-file: ${big} is larger than 64 KiB; expected the secret alone` }));
  });

  it('--token-file: the token from the file, over MAILROOM_WEBHOOK_TOKEN; with --token, a usage error', () => {
    const file = join(dir, 'token');
    writeFileSync(file, 'wht_fromfilefromfile0002\r\n');
    expect(tokenFrom(undefined, { MAILROOM_WEBHOOK_TOKEN: 'wht_env' }, file, dir)).toBe('wht_fromfilefromfile0002');
    expect(() => tokenFrom('wht_flag', {}, file, dir)).toThrow(expect.objectContaining({ kind: 'validation', message: 'use --token or --token-file, not both' }));
  });
});

describe('--help says argv is visible and offers the file form', () => {
  it.each([
    [['--help'], '--api-key-file'],
    [['webhooks', 'listen', '--help'], '--token-file'],
    [['webhooks', 'verify', '--help'], '--token-file'],
    [['webhooks', 'replay', '--help'], '--token-file'],
    [['webhooks', 'sample', '--help'], '--token-file'],
    [['config', 'set', '--help'], 'reads it from stdin'],
  ])('%j', async (argv, fileForm) => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const io = { out, err: new PassThrough(), in: Readable.from([]), isStdoutTTY: false, isStderrTTY: false, isStdinTTY: false, color: false };
    await runCommandLine({ io, env: {}, cwd: dir, signal: new AbortController().signal }, argv).catch(() => undefined);
    const flat = text.replace(/\s+/g, ' ');
    expect(flat).toContain('visible to other local users');
    expect(flat).toContain(fileForm);
  });
});
