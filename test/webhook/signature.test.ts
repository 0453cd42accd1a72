import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { findSignatureHeader, sign, verify } from '../../src/webhook/signature.js';

const token = 'wht_test_token_123';
const body = '{"event":"CONTACT_CREATED","createdAt":"2026-01-01T00:00:00.000Z","data":{}}';

describe('webhook signatures', () => {
  it('matches an independent HMAC computed by openssl', () => {
    const out = execFileSync('openssl', ['dgst', '-sha256', '-hmac', token], { input: body }).toString();
    const hex = /([0-9a-f]{64})\s*$/.exec(out)?.[1];
    expect(hex).toBeDefined();
    expect(sign(token, body)).toBe(hex);
    expect(verify(token, body, hex!)).toBe(true);
  });

  it('rejects a one-byte change, a wrong token and malformed signatures', () => {
    const sig = sign(token, body);
    expect(verify(token, body.replace('CREATED', 'CREATEd'), sig)).toBe(false);
    expect(verify('wht_other', body, sig)).toBe(false);
    expect(verify(token, body, sig.slice(0, 63))).toBe(false);
    expect(verify(token, body, 'zz'.repeat(32))).toBe(false);
    expect(verify(token, body, '')).toBe(false);
  });

  it('tolerates upper-case hex and a sha256= prefix', () => {
    const sig = sign(token, body);
    expect(verify(token, body, sig.toUpperCase())).toBe(true);
    expect(verify(token, body, `sha256=${sig}`)).toBe(true);
  });

  it('signs bytes and strings alike', () => {
    expect(sign(token, Buffer.from(body))).toBe(sign(token, body));
  });

  it('prefers the service header, then any X-*-Signature', () => {
    expect(findSignatureHeader({ 'x-other-signature': 'b', 'x-smashsend-signature': 'a' })).toEqual({ name: 'x-smashsend-signature', value: 'a' });
    expect(findSignatureHeader({ 'X-Service-Signature': 'c' })).toEqual({ name: 'x-service-signature', value: 'c' });
    expect(findSignatureHeader({ 'content-type': 'application/json' })).toBeUndefined();
  });
});
