import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FaultConfig } from './config.js';
import { HttpError } from './errors.js';

export function isApiPath(url: string): boolean {
  return url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?');
}

/**
 * Fault injection for clients under test, on `/v1` only (the inspection endpoints stay reliable):
 * a delay before any work (latencyBeforeMs), 503 answers and dropped connections before any work,
 * "lost" answers whose work is done but whose connection is destroyed before the answer is written,
 * and a delay of the answer after the work is done (latencyMs: the client that times out while it
 * waits has had its email accepted, and must not send it twice).
 */
export function installFaults(app: FastifyInstance, faults: Required<FaultConfig>, random: () => number = Math.random): void {
  const { errorRate, dropRate, lostRate, latencyMs, latencyBeforeMs } = faults;
  if (errorRate === 0 && dropRate === 0 && lostRate === 0 && latencyMs === 0 && latencyBeforeMs === 0) return;
  const lost = new WeakSet<FastifyRequest>();
  // Delays cut short when the sandbox closes, so that no timer keeps a test runner's process alive.
  const sleeping = new Map<NodeJS.Timeout, () => void>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        sleeping.delete(timer);
        resolve();
      }, ms);
      sleeping.set(timer, resolve);
    });
  app.addHook('onClose', async () => {
    for (const [timer, wake] of sleeping) {
      clearTimeout(timer);
      wake();
    }
    sleeping.clear();
  });

  app.addHook('onRequest', async (request, reply) => {
    if (!isApiPath(request.url)) return;
    if (latencyBeforeMs > 0) await sleep(latencyBeforeMs);
    if (errorRate > 0 && random() < errorRate) throw new HttpError(503, 'Service temporarily unavailable (fault injected by the sandbox: errorRate)');
    if (dropRate > 0 && random() < dropRate) {
      request.raw.socket.destroy();
      reply.hijack();
      return reply;
    }
    if (lostRate > 0 && random() < lostRate) lost.add(request);
    return undefined;
  });

  app.addHook('onSend', async (request, _reply, payload) => {
    if (lost.has(request)) {
      request.raw.socket.destroy();
      return payload;
    }
    if (latencyMs > 0 && isApiPath(request.url)) await sleep(latencyMs);
    return payload;
  });
}
