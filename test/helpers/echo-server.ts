import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Secrets of no known shape that the echo server also puts in every answer (as if it leaked them). */
export const STRAY_KEY = 'sk_live_strayStrayStrayStray0001';
export const STRAY_TOKEN = 'wht_strayStrayStrayStray0002';

export type EchoMode = { kind: 'ok' } | { kind: 'error'; status: number };

export interface EchoServer {
  baseUrl: string;
  mode: EchoMode;
  /** Bearer tokens seen, so a test knows what to look for. */
  bearers: Set<string>;
  close(): Promise<void>;
}

/** Fields left as the sandbox sent them, so that an answer still reads as the API's (and send's check that the answer is the email it sent passes). */
const KEEP = new Set(['to', 'from', 'subject', 'id', 'workspaceId', 'createdAt', 'updatedAt', 'status', 'role', 'url', 'events', 'startAt', 'hasMore', 'isDeleted', 'sendAt', 'type', 'event', 'ready']);

/**
 * A hostile API in front of a real sandbox: it echoes the bearer token of each request, the webhook
 * tokens it is given, and a stray key and token, in every field of every answer (success and error
 * bodies) and in headers. In `ok` mode answers are the sandbox's own with the secrets added to every
 * free-text field and a secret in every secret field (except a creation's new secret); in `error`
 * mode every request gets `status` with the secrets in every field of the error body.
 */
export async function echoServer(sandboxUrl: string, sandboxKey: string, tokens: readonly string[]): Promise<EchoServer> {
  const upstream = new URL(sandboxUrl);
  const state: EchoServer = { baseUrl: '', mode: { kind: 'ok' }, bearers: new Set(), close: async () => undefined };
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const bearer = /^Bearer (.*)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (bearer) state.bearers.add(bearer);
    const secrets = [bearer, ...tokens, STRAY_KEY, STRAY_TOKEN].filter(Boolean);
    const echo = secrets.join(' ');
    const headers = { 'content-type': 'application/json', 'x-request-id': `req_${echo}`, 'x-echo': echo, 'www-authenticate': `Bearer realm="${echo}"` };
    const mode = state.mode;
    if (mode.kind === 'error') {
      const body = { message: `Invalid API key ${echo}`, error: echo, code: echo, requestId: echo, details: [{ message: echo, field: echo, path: [echo] }], errors: [echo] };
      res.writeHead(mode.status, headers).end(JSON.stringify(body));
      return;
    }
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host, authorization: `Bearer ${sandboxKey}` } },
      (up) => {
        const parts: Buffer[] = [];
        up.on('data', (d: Buffer) => parts.push(d));
        up.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          let out = text;
          try {
            const creation = req.method === 'POST' && /\/api-keys\/?$|\/v1\/webhooks\/?$/.test((req.url ?? '').split('?')[0] as string);
            out = JSON.stringify(poison(JSON.parse(text), echo, bearer, tokens[0] ?? bearer, creation));
          } catch {
            // not JSON: as is
          }
          res.writeHead(up.statusCode ?? 502, headers).end(out);
        });
      },
    );
    forward.on('error', () => res.destroy());
    forward.end(Buffer.concat(chunks));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.baseUrl = `http://127.0.0.1:${port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

function poison(value: unknown, echo: string, bearer: string, token: string, creation: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => poison(v, echo, bearer, token, creation));
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'secretKey' && typeof v === 'string') out[k] = creation ? v : bearer;
    else if (k === 'token' && typeof v === 'string') out[k] = creation ? v : token;
    else if (typeof v === 'string' && !KEEP.has(k)) out[k] = `${v} ${echo}`;
    else out[k] = poison(v, echo, bearer, token, creation);
  }
  out.echo = echo;
  return out;
}
