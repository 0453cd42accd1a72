import { describe, expect, it } from 'vitest';
import { Pacer } from '../../src/transport/pacer.js';
import { RateLimiter } from '../../src/sandbox/limits.js';
import type { HttpError } from '../../src/sandbox/http-errors.js';

/** Virtual time: `wait` registers a timer; `run()` moves the clock from timer to timer until all settle. */
function virtualTime(opts: { late?: (n: number) => number } = {}) {
  let now = 0;
  const timers: { at: number; seq: number; fire: () => void }[] = [];
  let seq = 0;
  const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
  return {
    now: () => now,
    wait(ms: number, signal?: AbortSignal): Promise<void> {
      return new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        // A busy machine fires some timers late.
        const timer = { at: now + ms + (opts.late?.(seq) ?? 0), seq: seq++, fire: resolve };
        timers.push(timer);
        signal?.addEventListener('abort', () => {
          timers.splice(timers.indexOf(timer), 1);
          reject(signal.reason);
        }, { once: true });
      });
    },
    /** Runs until `done` settles, firing timers in time order. */
    async run<T>(done: Promise<T>): Promise<T> {
      let settled = false;
      void done.then(() => (settled = true), () => (settled = true));
      for (;;) {
        await flush();
        if (settled) return done;
        timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
        const next = timers.shift();
        if (!next) throw new Error('deadlock: nothing scheduled and not done');
        now = Math.max(now, next.at);
        next.fire();
      }
    },
    pending: () => timers.length,
    flush,
  };
}

const policy = (q: number, w: number, r: number, t = w) => ({ 'ratelimit-policy': `"default";q=${q};w=${w}`, ratelimit: `"default";r=${r};t=${t}` });

describe('Pacer', () => {
  it('lets one request go until the first answer, then the rest', async () => {
    const vt = virtualTime();
    const pacer = new Pacer({ now: vt.now, wait: vt.wait });
    expect(await pacer.acquire()).toBe(0);
    let second = false;
    const p = pacer.acquire().then(() => (second = true));
    await vt.flush();
    expect(second).toBe(false);
    pacer.observe(200, {}, 0);
    await p;
    expect(second).toBe(true);
    // No limit announced: nothing more is held.
    expect(await pacer.acquire()).toBe(0);
  });

  it('reports as paced only the time held for the rate limit, not the wait for the first answer (-v said "paced 1 ms" against no limit)', async () => {
    let now = 0;
    const vt = virtualTime();
    const pacer = new Pacer({ now: () => now, wait: vt.wait });
    expect(await pacer.acquire()).toBe(0);
    const second = pacer.acquire();
    // The first answer takes 40 ms; the second request waited for it, not for any quota.
    now = 40;
    pacer.observe(200, {}, 0);
    expect(await second).toBe(0);
  });

  it('reports the time a request was held for an announced quota', async () => {
    const vt = virtualTime();
    const pacer = new Pacer({ now: vt.now, wait: vt.wait });
    await pacer.acquire();
    pacer.observe(200, policy(2, 1, 0), 0);
    const waited = await vt.run(pacer.acquire());
    expect(waited).toBeGreaterThan(0);
    expect(waited).toBe(vt.now());
  });

  it('a first attempt without an answer (connection error) releases the others too', async () => {
    const vt = virtualTime();
    const pacer = new Pacer({ now: vt.now, wait: vt.wait });
    await pacer.acquire();
    const p = pacer.acquire();
    pacer.failed();
    expect(await p).toBe(0);
  });

  it('spaces requests by the announced policy, sharing the slots between concurrent requests', async () => {
    const vt = virtualTime();
    const pacer = new Pacer({ now: vt.now, wait: vt.wait });
    await pacer.acquire();
    pacer.observe(200, policy(2, 1, 1), 0);
    const starts: number[] = [];
    const all = Promise.all(Array.from({ length: 5 }, () => pacer.acquire().then(() => starts.push(vt.now()))));
    await vt.run(all);
    // One request left, but 250 ms of quota is kept in hand (arrival jitter): then one every 500 ms.
    expect(starts).toEqual([250, 750, 1250, 1750, 2250]);
  });

  it('honours what remains: RateLimit r lowers the tokens (another client spends the same quota)', async () => {
    const vt = virtualTime();
    const pacer = new Pacer({ now: vt.now, wait: vt.wait });
    await pacer.acquire();
    pacer.observe(200, policy(10, 1, 9), 0);
    await pacer.acquire();
    pacer.observe(200, { ratelimit: '"default";r=0;t=1' }, 0);
    // r=0: at most one more may be in the service's count; 250 ms of it in hand, then one per 100 ms.
    const starts: number[] = [];
    await vt.run(Promise.all(Array.from({ length: 3 }, () => pacer.acquire().then(() => starts.push(vt.now())))));
    expect(starts).toEqual([250, 350, 450]);
  });

  it('a 429 holds every request until Retry-After, those already waiting included', async () => {
    const vt = virtualTime();
    const pacer = new Pacer({ now: vt.now, wait: vt.wait });
    await pacer.acquire();
    pacer.observe(200, policy(1, 1, 0), 0);
    const starts: number[] = [];
    const waiting = pacer.acquire().then(() => starts.push(vt.now()));
    await vt.flush();
    // Another client took the slot: the answer is a 429 asking for 3 s.
    pacer.observe(429, { ...policy(1, 1, 0), 'retry-after': '3' }, 0);
    await vt.run(waiting);
    expect(starts).toEqual([3000]);
  });

  it('with nothing but Retry-After, guesses the quota from what got through in that time', async () => {
    const vt = virtualTime();
    const pacer = new Pacer({ now: vt.now, wait: vt.wait });
    for (let i = 0; i < 3; i++) {
      await pacer.acquire();
      pacer.observe(200, {}, vt.now());
    }
    await pacer.acquire();
    pacer.observe(429, { 'retry-after': '1' }, 0);
    const starts: number[] = [];
    await vt.run(Promise.all(Array.from({ length: 6 }, () => pacer.acquire().then(() => starts.push(vt.now())))));
    // Three got through in the 1 s the service asked to wait: three a second after the hold, with
    // 250 ms of that quota kept in hand.
    expect(starts).toEqual([1000, 1000, 1250, 1584, 1917, 2250]);
  });

  it('nothing left and a reset but no policy: holds until the reset (X-RateLimit-*)', async () => {
    const vt = virtualTime();
    const pacer = new Pacer({ now: vt.now, wait: vt.wait });
    await pacer.acquire();
    pacer.observe(200, { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '20' }, 0);
    const started = vt.run(pacer.acquire().then(() => vt.now()));
    expect(await started).toBe(20_000);
  });

  it('does not wait for a slot beyond a minute: the request goes and the API answers for itself', async () => {
    const vt = virtualTime();
    const pacer = new Pacer({ now: vt.now, wait: vt.wait });
    await pacer.acquire();
    pacer.observe(200, policy(1, 3600, 0), 0);
    expect(await pacer.acquire()).toBe(0);
    expect(vt.pending()).toBe(0);
  });

  it('Ctrl-C while waiting for a slot rejects with the signal, and the slot is not taken', async () => {
    const vt = virtualTime();
    const pacer = new Pacer({ now: vt.now, wait: vt.wait });
    await pacer.acquire();
    pacer.observe(200, policy(1, 1, 0), 0);
    const ac = new AbortController();
    const p = pacer.acquire(ac.signal);
    await vt.flush();
    ac.abort(new Error('SIGINT'));
    await expect(p).rejects.toThrow('SIGINT');
    await expect(pacer.acquire(ac.signal)).rejects.toThrow('SIGINT');
    // The next request gets the slot the aborted one would have had, as on a pacer where none waited.
    const after = await vt.run(pacer.acquire().then(() => vt.now()));
    const control = virtualTime();
    const untouched = new Pacer({ now: control.now, wait: control.wait });
    await untouched.acquire();
    untouched.observe(200, policy(1, 1, 0), 0);
    expect(after).toBe(await control.run(untouched.acquire().then(() => control.now())));
  });

  it('garbage rate headers change nothing', async () => {
    const vt = virtualTime();
    const pacer = new Pacer({ now: vt.now, wait: vt.wait });
    await pacer.acquire();
    pacer.observe(200, { 'ratelimit-policy': 'q=;w=x, "', ratelimit: '"default";r=-1', 'x-ratelimit-remaining': 'none', 'x-ratelimit-reset': 'later' }, 0);
    expect(await Promise.all([pacer.acquire(), pacer.acquire(), pacer.acquire()])).toEqual([0, 0, 0]);
  });
});

/**
 * A batch run in virtual time against the sandbox's own limiter: `concurrency` workers send
 * `requests` requests, each answered after `latencyMs`; a 429 is retried after its Retry-After,
 * as the transport and the batch sender do.
 */
async function simulate(opts: { perSecond: number; requests: number; concurrency: number; latencyMs: number; headers: boolean; pacing?: boolean; late?: (n: number) => number; arrival?: (n: number) => number }) {
  const vt = virtualTime({ late: opts.late });
  const pacer = opts.pacing === false ? { acquire: async () => 0, observe: () => undefined } : new Pacer({ now: vt.now, wait: vt.wait });
  const limiter = new RateLimiter(opts.perSecond);
  let next = 0;
  let sends = 0;
  let limited = 0;
  const answer = (): { status: number; headers: Record<string, string> } => {
    try {
      return { status: 200, headers: limiter.take('aki_sim', vt.now()) };
    } catch (err) {
      return { status: 429, headers: (err as HttpError).headers };
    }
  };
  const strip = (h: Record<string, string>) => (opts.headers ? h : Object.fromEntries(Object.entries(h).filter(([k]) => k === 'retry-after')));
  const worker = async () => {
    while (next < opts.requests) {
      next += 1;
      for (;;) {
        await pacer.acquire();
        const sentAt = vt.now();
        // The service counts the request when it arrives, some time after it left.
        const arrival = opts.arrival?.(sends++) ?? 0;
        if (arrival > 0) await vt.wait(arrival);
        const a = answer();
        await vt.wait(opts.latencyMs);
        pacer.observe(a.status, strip(a.headers), sentAt);
        if (a.status === 200) break;
        limited += 1;
        await vt.wait(Number(a.headers['retry-after']) * 1000);
      }
    }
  };
  await vt.run(Promise.all(Array.from({ length: opts.concurrency }, worker)));
  const burst = Math.max(1, Math.floor(opts.perSecond));
  const idealMs = (Math.max(0, opts.requests - burst) / opts.perSecond) * 1000;
  return { limited, ms: vt.now(), idealMs };
}

describe('Pacer against the sandbox limiter (virtual time)', () => {
  for (const [perSecond, requests] of [[1, 20], [5, 50], [50, 550]] as const) {
    it(`${perSecond}/s, ${requests} requests, 4 in flight: 429s at most 10% of requests, time at most 1.1x the ideal`, async () => {
      const r = await simulate({ perSecond, requests, concurrency: 4, latencyMs: 5, headers: true });
      expect(r.limited).toBeLessThanOrEqual(requests * 0.1);
      expect(r.ms).toBeLessThanOrEqual(r.idealMs * 1.1 + 50);
    });
  }

  it('timers that fire late (a busy machine) do not let the next request follow too closely', async () => {
    // Every third timer fires 70 ms late: each request is counted from when it really went.
    for (const [perSecond, requests] of [[1, 20], [5, 50], [50, 550]] as const) {
      const r = await simulate({ perSecond, requests, concurrency: 4, latencyMs: 5, headers: true, late: (n) => (n % 3 === 0 ? 70 : 0) });
      expect(r.limited, `${perSecond}/s`).toBeLessThanOrEqual(requests * 0.1);
    }
  });

  it('requests that arrive late (a busy service) do not make the next one arrive too soon', async () => {
    // Every other request takes 80 ms to reach the limiter, the others none.
    for (const [perSecond, requests] of [[1, 20], [5, 50], [50, 550]] as const) {
      const r = await simulate({ perSecond, requests, concurrency: 4, latencyMs: 5, headers: true, arrival: (n) => (n % 2 === 0 ? 80 : 0) });
      expect(r.limited, `${perSecond}/s`).toBeLessThanOrEqual(requests * 0.1);
      expect(r.ms, `${perSecond}/s`).toBeLessThanOrEqual(r.idealMs * 1.1 + 100);
    }
  });

  it('without the pacer the same runs draw a 429 or more per request', async () => {
    for (const [perSecond, requests] of [[1, 20], [5, 50]] as const) {
      const r = await simulate({ perSecond, requests, concurrency: 4, latencyMs: 5, headers: true, pacing: false });
      expect(r.limited, `${perSecond}/s`).toBeGreaterThan(requests * 0.5);
    }
  });

  it('with Retry-After alone (all the service promises): the first burst learns the limit, then 429s stay rare', async () => {
    // The first answer carries no policy, so the four requests in flight go at once: at 1/s all
    // four draw a 429, and after that none does.
    const slow = await simulate({ perSecond: 1, requests: 20, concurrency: 4, latencyMs: 5, headers: false });
    expect(slow.limited).toBeLessThanOrEqual(4);
    expect(slow.ms).toBeLessThanOrEqual(slow.idealMs * 1.1);
    for (const [perSecond, requests] of [[5, 50], [50, 550]] as const) {
      const r = await simulate({ perSecond, requests, concurrency: 4, latencyMs: 5, headers: false });
      expect(r.limited, `${perSecond}/s`).toBeLessThanOrEqual(requests * 0.1);
    }
  });
});
