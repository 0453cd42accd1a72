import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';

const token = 'wht_e2e_verify_Zq81XfT';
const body = '{"event":"CONTACT_CREATED","createdAt":"2026-11-22T08:00:00.000Z","data":{"contact":{"id":"ctc_abc","email":"ada@example.com"}}}';
const dir = mkdtempSync(join(tmpdir(), 'mailroom-verify-'));
const file = (name: string, content: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};
/** An independent HMAC: the openssl command-line tool, not our code. */
const opensslHmac = (data: string, key: string) => /([0-9a-f]{64})\s*$/.exec(execFileSync('openssl', ['dgst', '-sha256', '-hmac', key], { input: data }).toString())![1]!;

describe('mailroom webhooks verify', () => {
  const signature = opensslHmac(body, token);
  const payload = file('body.json', body);

  it('accepts a signature computed by openssl (exit 0), JSON when piped', async () => {
    const res = await runInProcess(['webhooks', 'verify', '--token', token, '--signature', signature, '--payload', payload]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ valid: true, header: 'x-smashsend-signature', bytes: body.length });
  });

  it('says so in words on a terminal', async () => {
    const res = await runInProcess(['webhooks', 'verify', '--token', token, '--signature', signature, '--payload', payload, '--no-color'], { tty: 'stdout' });
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(`✓ signature matches (${body.length}-byte body, X-Smashsend-Signature)\n`);
  });

  it('reads the body from stdin and the token from MAILROOM_WEBHOOK_TOKEN', async () => {
    const res = await runInProcess(['webhooks', 'verify', '--signature', signature, '--payload', '-'], { env: { MAILROOM_WEBHOOK_TOKEN: token }, input: body });
    expect(res.code).toBe(0);
  });

  it('refuses a one-byte change: exit 8 with the explanation line, token never printed', async () => {
    const changed = file('changed.json', body.replace('ada@', 'adb@'));
    const res = await runInProcess(['webhooks', 'verify', '--token', token, '--signature', signature, '--payload', changed]);
    expect(res.code).toBe(8);
    expect(res.stderr.split('\n')[0]).toBe('mailroom: signature does not match: wrong token, or the body changed after it was signed');
    expect(JSON.parse(res.stdout)).toMatchObject({ valid: false, reason: 'mismatch', cause: 'token-or-body' });
    expect(res.stdout + res.stderr).not.toContain(token);
  });

  it('explains a body saved with a trailing newline and a re-serialised body', async () => {
    const newline = await runInProcess(['webhooks', 'verify', '--token', token, '--signature', signature, '--payload', file('nl.json', `${body}\n`)]);
    expect(newline.code).toBe(8);
    expect(newline.stderr).toContain('a trailing newline or whitespace was added to the body');
    const pretty = await runInProcess(['webhooks', 'verify', '--token', token, '--signature', signature, '--payload', file('pretty.json', JSON.stringify(JSON.parse(body), null, 2))]);
    expect(pretty.code).toBe(8);
    expect(pretty.stderr).toContain('the body was re-serialised');
  });

  it('reads a raw captured request with --header-file (signature and body from the file)', async () => {
    const raw = `POST /webhooks HTTP/1.1\r\nHost: localhost:3000\r\nContent-Type: application/json\r\nX-SMASHSEND-SIGNATURE: ${signature}\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const res = await runInProcess(['webhooks', 'verify', '--token', token, '--header-file', file('req.http', raw)]);
    expect(res.code).toBe(0);
    const tampered = await runInProcess(['webhooks', 'verify', '--token', token, '--header-file', '-'], { input: raw.replace('"ada@', '"ad@a') });
    expect(tampered.code).toBe(8);
  });

  it('takes headers-only plus --payload, and says when the header is missing', async () => {
    const ok = await runInProcess(['webhooks', 'verify', '--token', token, '--header-file', file('h.txt', `X-Smashsend-Signature: ${signature}\n`), '--payload', payload]);
    expect(ok.code).toBe(0);
    const none = await runInProcess(['webhooks', 'verify', '--token', token, '--header-file', file('h2.txt', 'Content-Type: application/json\n'), '--payload', payload]);
    expect(none.code).toBe(8);
    expect(none.stderr).toMatch(/^mailroom: no signature header: expected X-Smashsend-Signature/);
  });

  it('explains a mismatch on JSON nested too deeply to re-serialise (exit 8, not a crash)', async () => {
    const deep = file('deep.json', `${'['.repeat(30_000)}${']'.repeat(30_000)}`);
    const res = await runInProcess(['webhooks', 'verify', '--token', token, '--signature', signature, '--payload', deep]);
    expect(res.code).toBe(8);
    expect(res.stderr.split('\n')[0]).toBe('mailroom: signature does not match: wrong token, or the body changed after it was signed');
  });

  it('calls a malformed signature malformed (exit 8)', async () => {
    const res = await runInProcess(['webhooks', 'verify', '--token', token, '--signature', signature.slice(0, 40), '--payload', payload]);
    expect(res.code).toBe(8);
    expect(res.stderr).toContain('malformed signature');
  });

  it('exits 2 with one line when the token or the signature is missing', async () => {
    const noToken = await runInProcess(['webhooks', 'verify', '--signature', signature, '--payload', payload]);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr.trim().split('\n')).toHaveLength(1);
    expect(noToken.stderr).toContain('MAILROOM_WEBHOOK_TOKEN');
    const noSig = await runInProcess(['webhooks', 'verify', '--token', token, '--payload', payload]);
    expect(noSig.code).toBe(2);
  });
});
