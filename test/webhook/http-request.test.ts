import { describe, expect, it } from 'vitest';
import { parseCapturedRequest } from '../../src/webhook/http-request.js';

const body = '{"event":"CONTACT_DELETED","createdAt":"2026-01-01T00:00:00.000Z","data":{}}';

describe('parseCapturedRequest', () => {
  it('reads a raw request: request line, headers (case-folded), blank line, exact body', () => {
    const raw = `POST /hooks/mail HTTP/1.1\r\nHost: localhost:4242\r\nContent-Type: application/json\r\nX-SMASHSEND-SIGNATURE: abc123\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const req = parseCapturedRequest(Buffer.from(raw));
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/hooks/mail');
    expect(req.headers['x-smashsend-signature']).toBe('abc123');
    expect(req.body?.toString()).toBe(body);
    expect(req.notes).toEqual([]);
  });

  it('cuts an editor-added newline past Content-Length, and says so', () => {
    const raw = `POST / HTTP/1.1\nContent-Length: ${body.length}\n\n${body}\n`;
    const req = parseCapturedRequest(Buffer.from(raw));
    expect(req.body?.toString()).toBe(body);
    expect(req.notes[0]).toContain('1 byte(s) after');
  });

  it('decodes a chunked body', () => {
    const raw = `POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n`;
    expect(parseCapturedRequest(Buffer.from(raw)).body?.toString()).toBe('hello world');
  });

  it('reads a headers-only file (no request line, no body)', () => {
    const req = parseCapturedRequest(Buffer.from('X-Smashsend-Signature: deadbeef\n'));
    expect(req.method).toBeUndefined();
    expect(req.headers).toEqual({ 'x-smashsend-signature': 'deadbeef' });
    expect(req.body).toBeUndefined();
  });

  it('refuses text that is not a request', () => {
    expect(() => parseCapturedRequest(Buffer.from('just some words\n'))).toThrow(/not a header line/);
  });
});
