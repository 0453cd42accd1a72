import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ResolvedConfig } from './config.js';
import { HttpError } from './http-errors.js';

export function isApiPath(url: string): boolean {
  return url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?');
}

/**
 * Fault injection for clients under test, on `/v1` only (the inspection endpoints stay reliable):
 * a delay before any work (latencyBeforeMs), 503 answers and dropped connections before any work,
 * "lost" answers whose work is done but whose connection is destroyed before the answer is written,
 * and a delay of the answer after the work is done (latencyMs: the client that times out while it
 * waits has had its email accepted, and must not send it twice).
 *
 * With a seed, each workspace draws from a sequence of its own (`sequenceOf` names the workspace of
 * a request: its key's, else the first), and a reset of a workspace starts only its sequence again:
 * a parallel test worker in its own workspace meets the same faults whatever the others do.
 */
export function installFaults(app: FastifyInstance, faults: ResolvedConfig['faults'], sequenceOf: (request: FastifyRequest) => string): { restart(workspaceId: string): void } {
  const { errorRate, dropRate, lostRate, latencyMs, latencyBeforeMs, seed } = faults;
  const sequences = new Map<string, () => number>();
  const randomOf = (request: FastifyRequest): (() => number) => {
    if (seed === undefined) return Math.random;
    const id = sequenceOf(request);
    let random = sequences.get(id);
    if (!random) {
      random = seededRandom(seed);
      sequences.set(id, random);
    }
    return random;
  };
  // A reset starts the workspace's seeded sequence again: each test of a shared sandbox meets the same faults.
  const restart = (workspaceId: string) => {
    sequences.delete(workspaceId);
  };
  if (errorRate === 0 && dropRate === 0 && lostRate === 0 && latencyMs === 0 && latencyBeforeMs === 0) return { restart };
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
    const random = errorRate > 0 || dropRate > 0 || lostRate > 0 ? randomOf(request) : Math.random;
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
  return { restart };
}

/**
 * The seeded draws (mulberry32): uniform in [0, 1), the same sequence for the same seed. The
 * sandbox draws, per /v1 request and in this order, one for errorRate, dropRate and lostRate each
 * that is above 0, stopping at the first fault met; a test can replay the sequence to know them.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
