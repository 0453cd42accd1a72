import { PassThrough } from 'node:stream';
import { beforeEach, describe, expect, it } from 'vitest';
import { guardIO, holdSecret, mask, redactText, redactValue, resetSecrets, reveal } from '../src/secrets.js';

beforeEach(() => resetSecrets());

describe('mask', () => {
  it.each([
    ['sk_live_0123456789abcdefWXYZ', 'sk_live_…WXYZ'],
    ['wht_0123456789abcdef9876', 'wht_…9876'],
    ['sk_live_short', 'sk_live_…'],
    ['plainsecretvalue1234', '…1234'],
    ['sk_live_…WXYZ', 'sk_live_…WXYZ'],
  ])('%s → %s', (secret, masked) => {
    expect(mask(secret)).toBe(masked);
  });
});

describe('redactText', () => {
  it('masks the secrets this run holds whatever their shape, key- and token-shaped values, and secret JSON fields', () => {
    holdSecret('my-own-key-0000');
    const line = '{"secretKey":"local-dev-secret-value","token":"anything-goes-here-1234","note":"sk_live_abcdefghijklmnop1234 and wht_zyxwvutsrqponm9876 and sk_test_abcdefghijklmnop5678","mine":"my-own-key-0000"}';
    expect(redactText(line)).toBe('{"secretKey":"…alue","token":"…1234","note":"sk_live_…1234 and wht_…9876 and sk_test_…5678","mine":"…0000"}');
  });

  it('masks a held secret inside an error message', () => {
    holdSecret('mr-own-key-Qz81aPl3vX0cR7');
    expect(redactText('mailroom: API 401: Invalid API key mr-own-key-Qz81aPl3vX0cR7')).toBe('mailroom: API 401: Invalid API key …0cR7');
  });

  it('masks a held secret however a server echoes it: URL-encoded, JSON-escaped, in base64 (Basic auth), in upper or lower case', () => {
    const token = 'my/own+token=Secret"1\\x';
    holdSecret(token);
    const echoes = [
      `callback?token=${encodeURIComponent(token)}&x=1`,
      `{"message":"bad signing secret ${JSON.stringify(token).slice(1, -1)}"}`,
      `Authorization: Basic ${Buffer.from(token).toString('base64')}`,
      `Authorization: Basic ${Buffer.from(`user:${token}`).toString('base64')}`,
      `key ${token.toUpperCase()} is invalid`,
      `key ${token.toLowerCase()} is invalid`,
    ];
    for (const echo of echoes) {
      const out = redactText(echo);
      expect(out, echo).not.toContain(encodeURIComponent(token));
      expect(out, echo).not.toContain(JSON.stringify(token).slice(1, -1));
      expect(out, echo).not.toContain(Buffer.from(token).toString('base64').slice(0, 24));
      expect(out.toLowerCase(), echo).not.toContain(token.toLowerCase());
      expect(out, echo).toContain('…');
    }
  });

  it('leaves ids and ordinary text alone', () => {
    const line = '→ GET http://127.0.0.1:4025/v1/workspaces/wrk_abc/api-keys/aki_123 {"displayName":"ci"}';
    expect(redactText(line)).toBe(line);
  });

  it('lets a revealed secret through only where allowed (the terminal), and nothing else with it', () => {
    const fresh = 'sk_live_newnewnewnewnewnew9999';
    reveal(fresh);
    holdSecret('wht_inuseinuseinuse1111');
    const text = `{"secretKey":"${fresh}","echo":"wht_inuseinuseinuse1111 sk_live_otherotherother2222"}`;
    expect(redactText(text, { allowRevealed: true })).toBe(`{"secretKey":"${fresh}","echo":"wht_…1111 sk_live_…2222"}`);
    expect(redactText(text)).toBe('{"secretKey":"sk_live_…9999","echo":"wht_…1111 sk_live_…2222"}');
  });
});

describe('redactValue', () => {
  it('masks secret fields at any depth and every string, leaving the input as it was', () => {
    const body = { apiKeys: { items: [{ id: 'aki_1', secretKey: 'sk_live_0123456789abcdefWXYZ' }], hasMore: false }, webhook: { token: 'no-shape-token-9876', url: 'https://h.test', note: 'wht_0123456789abcdef5555' } };
    expect(redactValue(body)).toEqual({ apiKeys: { items: [{ id: 'aki_1', secretKey: 'sk_live_…WXYZ' }], hasMore: false }, webhook: { token: '…9876', url: 'https://h.test', note: 'wht_…5555' } });
    expect(body.webhook.token).toBe('no-shape-token-9876');
  });
});

describe('guardIO', () => {
  it('masks every write to out and err, keeps the stream its own, and lets a new secret show once on the terminal', () => {
    const out = new PassThrough();
    const err = new PassThrough();
    let stdout = '';
    let stderr = '';
    out.on('data', (d: Buffer) => (stdout += d.toString()));
    err.on('data', (d: Buffer) => (stderr += d.toString()));
    const io = guardIO({ out, err, isStdoutTTY: false });
    holdSecret('mr-own-key-Qz81aPl3vX0cR7');
    reveal('wht_brandnewtokenbrandnew4242');
    io.err.write('mailroom: rejected mr-own-key-Qz81aPl3vX0cR7\n');
    io.out.write(Buffer.from('{"token":"wht_brandnewtokenbrandnew4242","old":"wht_oldoldoldoldoldold7777"}\n'));
    expect(stderr).toBe('mailroom: rejected …0cR7\n');
    expect(stdout).toBe('{"token":"wht_brandnewtokenbrandnew4242","old":"wht_…7777"}\n');
    expect(io.isStdoutTTY).toBe(false);
    expect(guardIO(io)).toBe(io);
    expect(io.out).toBe(io.out);
  });
});
