import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FaultConfig } from './config.js';
import { HttpError } from './errors.js';

export function isApiPath(url: string): boolean {
  return url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?');
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Fault injection for clients under test, on `/v1` only (the inspection endpoints stay reliable):
 * added latency, 503 answers and dropped connections before any work, and "lost" answers whose
 * work is done but whose connection is destroyed before the answer is written.
 */
export function installFaults(app: FastifyInstance, faults: Required<FaultConfig>, random: () => number = Math.random): void {
  const { errorRate, dropRate, lostRate, latencyMs } = faults;
  if (errorRate === 0 && dropRate === 0 && lostRate === 0 && latencyMs === 0) return;
  const lost = new WeakSet<FastifyRequest>();

  app.addHook('onRequest', async (request, reply) => {
    if (!isApiPath(request.url)) return;
    if (latencyMs > 0) await sleep(latencyMs);
    if (errorRate > 0 && random() < errorRate) throw new HttpError(503, 'Service temporarily unavailable (fault injected by the sandbox: errorRate)');
    if (dropRate > 0 && random() < dropRate) {
      request.raw.socket.destroy();
      reply.hijack();
      return reply;
    }
    if (lostRate > 0 && random() < lostRate) lost.add(request);
    return undefined;
  });

  if (lostRate > 0) {
    app.addHook('onSend', async (request, _reply, payload) => {
      if (lost.has(request)) request.raw.socket.destroy();
      return payload;
    });
  }
}
