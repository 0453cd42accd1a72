import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  /** The request body as text ('' when none). */
  body: string;
}

/**
 * What to do instead of a plain forward: answer with `status`/`body` without forwarding (one step of
 * a flow fails; `headers` added to its own), or forward, let the sandbox do the work, and then spoil its answer: `lose` cuts the
 * connection before the answer reaches the client (a lost response), `reset` cuts it with a TCP RST,
 * `garble` answers bytes that are not HTTP (`HTTZ/1.1 200`, echoing the request's headers as a
 * broken proxy would), `stall` never answers, `unparseable` answers the sandbox's status with a body
 * cut in the middle of its JSON.
 */
export type ForcedAnswer = { status: number; body: unknown; headers?: Record<string, string> } | { lose: true } | { reset: true } | { garble: true } | { stall: true } | { unparseable: true };

export interface RecordingProxy {
  baseUrl: string;
  /** Every request that reached the proxy, forwarded or not. */
  seen: SeenRequest[];
  /** Resolves once every request forwarded so far has its answer from the sandbox, whether or not its client is still there to read it. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A loopback HTTP proxy in front of a sandbox: records every request (to prove bad input sends
 * nothing) and can answer chosen requests itself (to prove a failure leaves things as they were).
 */
export async function recordingProxy(target: string, force?: (req: SeenRequest) => ForcedAnswer | undefined): Promise<RecordingProxy> {
  const seen: SeenRequest[] = [];
  const upstream = new URL(target);
  // Forwards whose answer has not come back yet (a client killed mid-request leaves its request here
  // until the sandbox has answered it: it may still have acted on it).
  let inFlight = 0;
  let idle: Array<() => void> = [];
  const forwarded = () => {
    inFlight -= 1;
    if (inFlight > 0) return;
    for (const resolve of idle) resolve();
    idle = [];
  };
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const entry: SeenRequest = { method: req.method ?? 'GET', path: req.url ?? '/', authorization: req.headers.authorization, body: body.toString('utf8') };
    seen.push(entry);
    const forced = force?.(entry);
    if (forced && 'status' in forced) {
      res.writeHead(forced.status, { 'content-type': 'application/json', 'x-request-id': 'req_forced', ...forced.headers }).end(JSON.stringify(forced.body));
      return;
    }
    inFlight += 1;
    let done = false;
    const answered = () => {
      if (done) return;
      done = true;
      forwarded();
    };
    const out = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (up) => {
        up.on('end', answered);
        up.on('close', answered);
        if (forced) {
          const chunks: Buffer[] = [];
          up.on('data', (chunk: Buffer) => chunks.push(chunk));
          up.on('end', () => {
            const socket = res.socket;
            if ('lose' in forced) socket?.destroy();
            else if ('reset' in forced) socket?.resetAndDestroy();
            else if ('garble' in forced) {
              const echoed = Object.entries(req.headers).map(([name, value]) => `${name}: ${String(value)}`);
              socket?.end(['HTTZ/1.1 200 OK', ...echoed, '', ''].join('\r\n'));
            } else if ('unparseable' in forced) {
              const text = Buffer.concat(chunks).toString('utf8');
              res.writeHead(up.statusCode ?? 200, { 'content-type': 'application/json' }).end(text.slice(0, Math.floor(text.length / 2)));
            }
            // stall: nothing; close() cuts the connection.
          });
          return;
        }
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on('error', () => {
      answered();
      res.destroy();
    });
    out.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    seen,
    settled: () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
