import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  authorization: string | undefined;
}

/** An answer the proxy gives itself instead of forwarding (to force one step of a flow to fail). */
export interface ForcedAnswer {
  status: number;
  body: unknown;
}

export interface RecordingProxy {
  baseUrl: string;
  /** Every request that reached the proxy, forwarded or not. */
  seen: SeenRequest[];
  close(): Promise<void>;
}

/**
 * A loopback HTTP proxy in front of a sandbox: records every request (to prove bad input sends
 * nothing) and can answer chosen requests itself (to prove a failure leaves things as they were).
 */
export async function recordingProxy(target: string, force?: (req: SeenRequest) => ForcedAnswer | undefined): Promise<RecordingProxy> {
  const seen: SeenRequest[] = [];
  const upstream = new URL(target);
  const server = createServer((req: IncomingMessage, res) => {
    const entry: SeenRequest = { method: req.method ?? 'GET', path: req.url ?? '/', authorization: req.headers.authorization };
    seen.push(entry);
    const forced = force?.(entry);
    if (forced) {
      req.resume();
      res.writeHead(forced.status, { 'content-type': 'application/json', 'x-request-id': 'req_forced' }).end(JSON.stringify(forced.body));
      return;
    }
    const out = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
