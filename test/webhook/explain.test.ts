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
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    expect(diagnose(token, bytes(deep), sign(token, body))).toMatchObject({ ok: false, reason: 'mismatch', cause: 'token-or-body' });
  });
});
