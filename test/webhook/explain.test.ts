import { describe, expect, it } from 'vitest';
import { diagnose } from '../../src/webhook/explain.js';
import { sign } from '../../src/webhook/signature.js';

const token = 'wht_explain_token_1';
const body = '{"event":"CONTACT_CREATED","createdAt":"2026-01-01T00:00:00.000Z","data":{"contact":{"email":"a@example.com"}}}';
const bytes = (s: string) => Buffer.from(s);

describe('diagnose', () => {
  it('accepts the exact bytes', () => {
    expect(diagnose(token, bytes(body), sign(token, body))).toEqual({ ok: true });
  });

  it('says the header is missing', () => {
    const v = diagnose(token, bytes(body), undefined);
    expect(v).toMatchObject({ ok: false, reason: 'missing' });
    expect(!v.ok && v.message).toContain('X-Smashsend-Signature');
  });

  it('calls out malformed signatures, naming SHA-1 and base64 look-alikes', () => {
    expect(diagnose(token, bytes(body), 'abc')).toMatchObject({ reason: 'malformed', message: expect.stringContaining('got 3') });
    expect(diagnose(token, bytes(body), 'a'.repeat(40))).toMatchObject({ reason: 'malformed', message: expect.stringContaining('SHA-1') });
    const b64 = Buffer.from(sign(token, body), 'hex').toString('base64');
    expect(diagnose(token, bytes(body), b64)).toMatchObject({ reason: 'malformed', message: expect.stringContaining('base64') });
  });

  it('recognises a body re-serialised by a proxy (pretty printed, or compacted)', () => {
    const pretty = JSON.stringify(JSON.parse(body), null, 2);
    expect(diagnose(token, bytes(pretty), sign(token, body))).toMatchObject({ reason: 'mismatch', cause: 'reserialised', message: expect.stringContaining('re-serialised') });
    expect(diagnose(token, bytes(body), sign(token, pretty))).toMatchObject({ cause: 'reserialised' });
  });

  it('recognises an added trailing newline, a lost one, and changed line endings', () => {
    expect(diagnose(token, bytes(`${body}\n`), sign(token, body))).toMatchObject({ cause: 'trailing-whitespace-added', message: expect.stringContaining('trailing newline') });
    expect(diagnose(token, bytes(body), sign(token, `${body}\n`))).toMatchObject({ cause: 'trailing-newline-removed' });
    const lf = 'line one\nline two';
    expect(diagnose(token, bytes(lf.replace(/\n/g, '\r\n')), sign(token, lf))).toMatchObject({ cause: 'line-endings' });
  });

  it('recognises a token with a stray newline', () => {
    expect(diagnose(`${token}\n`, bytes(body), sign(token, body))).toMatchObject({ cause: 'token-whitespace' });
  });

  it('otherwise blames the token or a changed body', () => {
    const wrong = diagnose('wht_other', bytes(body), sign(token, body));
    expect(wrong).toMatchObject({ reason: 'mismatch', cause: 'token-or-body', message: 'signature does not match: wrong token, or the body changed after it was signed' });
    expect(diagnose(token, bytes(body.replace('a@', 'b@')), sign(token, body))).toMatchObject({ cause: 'token-or-body' });
  });
});

describe('diagnose on hostile bodies', () => {
  it('explains a mismatch on JSON nested too deeply to re-serialise instead of throwing', () => {
    const deep = `${'['.repeat(30_000)}${']'.repeat(30_000)}`;
    expect(diagnose(token, bytes(deep), sign(token, body))).toMatchObject({ ok: false, reason: 'mismatch', cause: 'token-or-body' });
  });
});

describe('diagnose on large bodies: cheap checks only', () => {
  const large = JSON.stringify({ event: 'CONTACT_CREATED', createdAt: '2026-01-01T00:00:00.000Z', data: { pad: 'x'.repeat(200_000), list: [1, 2, 3] } });

  it('still spots a trailing newline added or lost, and a token with whitespace, on a 200 KB body', () => {
    expect(diagnose(token, bytes(`${large}\n`), sign(token, large))).toMatchObject({ cause: 'trailing-whitespace-added' });
    expect(diagnose(token, bytes(large), sign(token, `${large}\n`))).toMatchObject({ cause: 'trailing-newline-removed' });
    expect(diagnose(`${token}\n`, bytes(large), sign(token, large))).toMatchObject({ cause: 'token-whitespace' });
  });

  it('does not parse or re-serialise it (no re-serialisation or line-ending guess), and says so', () => {
    const pretty = JSON.stringify(JSON.parse(large), null, 2);
    const v = diagnose(token, bytes(pretty), sign(token, large));
    expect(v).toMatchObject({ ok: false, reason: 'mismatch', cause: 'token-or-body' });
    expect(v.ok ? '' : v.message).toBe('signature does not match: wrong token, or the body changed after it was signed (a body over 64 KiB gets the quick checks only)');
    // A small body with the same fault is explained fully.
    const small = JSON.stringify({ a: 1, b: [1, 2] });
    expect(diagnose(token, bytes(JSON.stringify(JSON.parse(small), null, 2)), sign(token, small))).toMatchObject({ cause: 'reserialised' });
  });

  it('costs little on a 1 MB body: under 50 ms where the full explanation took ~65 ms and many copies', () => {
    const mb = JSON.stringify({ event: 'CONTACT_CREATED', data: { pad: 'y'.repeat(1024 * 1024) } });
    const body = bytes(mb);
    diagnose(token, body, sign('other', mb));
    const started = performance.now();
    for (let i = 0; i < 5; i++) diagnose(token, body, sign('other', mb));
    expect((performance.now() - started) / 5).toBeLessThan(50);
  });
});
