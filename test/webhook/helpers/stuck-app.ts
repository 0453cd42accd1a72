import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StuckApp {
  url: string;
  held: Array<{ req: IncomingMessage; res: ServerResponse }>;
  /** Resolves once `n` requests have arrived. */
  arrived(n: number): Promise<void>;
  close(): Promise<void>;
}

/** An app that takes requests and answers none of them until released (a slow or stuck app). */
export async function stuckApp(): Promise<StuckApp> {
  const held: Array<{ req: IncomingMessage; res: ServerResponse }> = [];
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    req.resume();
    held.push({ req, res });
    for (const w of waiters.splice(0)) w();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    held,
    arrived: (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (held.length >= n ? resolve() : waiters.push(check));
        check();
      }),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
