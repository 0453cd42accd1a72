/**
 * Reads a captured HTTP request (`nc -l` output, a proxy dump, a file saved from a request
 * inspector): optional request line, headers, a blank line, then the body bytes. A headers-only file
 * (no blank line, or nothing after it) yields `body: undefined` so the caller can take the body
 * from elsewhere.
 */
export interface CapturedRequest {
  method?: string;
  path?: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  /** Things a reader should know, e.g. the body was cut to Content-Length. */
  notes: string[];
}

const REQUEST_LINE = /^([A-Z]+) (\S+) HTTP\/\d(\.\d)?$/;
const HEADER_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/;

export function parseCapturedRequest(raw: Buffer): CapturedRequest {
  const { head, body } = splitHead(raw);
  const lines = head.toString('latin1').split(/\r?\n/);
  const out: CapturedRequest = { headers: {}, body: undefined, notes: [] };
  const first = lines[0] ?? '';
  const requestLine = REQUEST_LINE.exec(first);
  if (requestLine) {
    out.method = requestLine[1];
    out.path = requestLine[2];
    lines.shift();
  }
  for (const line of lines) {
    if (line === '') continue;
    const header = HEADER_LINE.exec(line);
    if (!header) throw new Error(`not a header line: ${JSON.stringify(line.slice(0, 80))}`);
    const name = header[1]!.toLowerCase();
    out.headers[name] = out.headers[name] === undefined ? header[2]! : `${out.headers[name]}, ${header[2]!}`;
  }
  if (body === undefined || body.length === 0) return out;
  out.body = decodeBody(body, out.headers, out.notes);
  return out;
}

function splitHead(raw: Buffer): { head: Buffer; body: Buffer | undefined } {
  const crlf = raw.indexOf('\r\n\r\n');
  const lf = raw.indexOf('\n\n');
  if (crlf === -1 && lf === -1) return { head: raw, body: undefined };
  if (crlf !== -1 && (lf === -1 || crlf < lf)) return { head: raw.subarray(0, crlf), body: raw.subarray(crlf + 4) };
  return { head: raw.subarray(0, lf), body: raw.subarray(lf + 2) };
}

function decodeBody(body: Buffer, headers: Record<string, string>, notes: string[]): Buffer {
  if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) return decodeChunked(body);
  const declared = headers['content-length'];
  if (declared === undefined || !/^\d+$/.test(declared)) return body;
  const length = Number(declared);
  if (body.length > length) {
    notes.push(`the file has ${body.length - length} byte(s) after the ${length} the Content-Length header declares; they were ignored`);
    return body.subarray(0, length);
  }
  if (body.length < length) notes.push(`the body is ${body.length} bytes but Content-Length says ${length}: the capture looks truncated`);
  return body;
}

function decodeChunked(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', at);
    if (eol === -1) throw new Error('chunked body ends before its last chunk');
    const size = Number.parseInt(body.subarray(at, eol).toString('latin1').split(';')[0]!.trim(), 16);
    if (!Number.isFinite(size)) throw new Error('chunked body has a bad chunk size');
    if (size === 0) return Buffer.concat(parts);
    parts.push(body.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}
