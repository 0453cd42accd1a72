import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Checked with node:crypto directly, not with mailroom's code. */
  signatureValid: boolean;
}

export interface TestApp {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/**
 * The developer's app in webhook e2e tests: records each request and checks its signature
 * independently. `status` picks the answer (default: 200 when the signature is valid, else 400).
 */
export async function startApp(token: string, status: (n: number, signatureValid: boolean) => number = (_n, ok) => (ok ? 200 : 400)): Promise<TestApp> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const expected = createHmac('sha256', token).update(body).digest();
      const got = Buffer.from(String(req.headers['x-smashsend-signature'] ?? ''), 'hex');
      const signatureValid = got.length === expected.length && timingSafeEqual(got, expected);
      received.push({ path: req.url ?? '', headers: req.headers, body, signatureValid });
      res.writeHead(status(received.length, signatureValid)).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/mailroom`,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
