import { describe, expect, it } from 'vitest';
import { BatchSender, type Clock, type SenderEvents } from '../../src/batch/sender.js';
import type { ValidEntry } from '../../src/input/entries.js';
import type { EmailRequest } from '../../src/schema/index.js';
import { entries, fakeApi } from './fake-api.js';
import { exitCodeOf } from '../../src/exit-codes.js';

async function* chunks(list: ValidEntry[], size: number): AsyncGenerator<ValidEntry[]> {
  for (let i = 0; i < list.length; i += size) yield list.slice(i, i + size);
}

function recorder() {
  const outcome = new Map<number, string>();
  const settle = (e: ValidEntry, what: string) => {
    if (outcome.has(e.index)) throw new Error(`entry ${e.index} settled twice`);
    outcome.set(e.index, what);
  };
  const events: SenderEvents = {
    sent: (e, r) => settle(e, `sent ${r.id}`),
    rejected: (e, f) => settle(e, `rejected ${f.error}`),
    uncertain: (e, why) => settle(e, `uncertain ${why}`),
    unsent: (e) => settle(e, 'unsent'),
  };
  return { outcome, events };
}

const opts = { backoffMs: 1, concurrency: 4 };

describe('batch sender', () => {
  it('sends every entry exactly once through 503s, dropped and lost answers, 429s and answers missing an entry', async () => {
    const faults = ['503', 'drop', 'lost', '429', 'omit-one'] as const;
    const api = fakeApi({ fault: (call) => (call % 3 === 0 ? faults[(call / 3) % faults.length] : 'ok') });
    const list = entries(2000);
    const { outcome, events } = recorder();
    const sender = new BatchSender({ ...opts, send: api.send, events, signal: new AbortController().signal });
    const result = await sender.run(chunks(list, 50));
    expect(result).toEqual({ finished: true, fatal: undefined });
    expect(outcome.size).toBe(2000);
    expect([...outcome.values()].every((v) => v.startsWith('sent trs_'))).toBe(true);
    expect(api.delivered).toHaveLength(2000);
    expect(new Set(api.delivered.map((e) => e.idempotencyKey)).size).toBe(2000);
    expect(api.maxInFlight).toBeLessThanOrEqual(4);
  });

  it('reports entries the API refuses, placed by index or by to', async () => {
    for (const fault of ['ok', 'no-index'] as const) {
      const api = fakeApi({ fault: () => fault, reject: (e) => (e.to.startsWith('u1') ? 'Sender not verified' : undefined) });
      const { outcome, events } = recorder();
      await new BatchSender({ ...opts, send: api.send, events, signal: new AbortController().signal }).run(chunks(entries(30), 10));
      const rejected = [...outcome].filter(([, v]) => v.startsWith('rejected')).map(([i]) => i).sort((a, b) => a - b);
      expect(rejected).toEqual([1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
      expect(outcome.get(1)).toBe('rejected 400 Bad Request: Sender not verified');
      expect(api.delivered).toHaveLength(19);
    }
  });

  it('a failed item with 429 or 5xx is about the service, not the entry: retried, then sent; 403 stops the run with it unsent', async () => {
    let calls = 0;
    const send = async (emails: EmailRequest[]) => {
      calls += 1;
      if (calls <= 2) return { successful: [], failed: emails.map((_, index) => ({ index, statusCode: calls === 1 ? 503 : 429, error: 'Busy', message: 'try again' })) };
      return { successful: emails.map((e, i) => ({ id: `trs_${calls}_${i}`, status: 'SENT', to: e.to, type: 'raw' as const })), failed: [] };
    };
    const { outcome, events } = recorder();
    await new BatchSender({ ...opts, send, events, signal: new AbortController().signal }).run(chunks(entries(3), 3));
    expect([...outcome.values()]).toEqual(['sent trs_3_0', 'sent trs_3_1', 'sent trs_3_2']);

    const limited = recorder();
    const limit = async (emails: EmailRequest[]) => ({
      successful: [{ id: 'trs_0', status: 'SENT', to: emails[0]!.to, type: 'raw' as const }],
      failed: emails.slice(1).map((_, i) => ({ index: i + 1, statusCode: 403, error: 'Forbidden', message: 'Monthly sending limit reached (1 emails this month)' })),
    });
    const r = await new BatchSender({ ...opts, send: limit, events: limited.events, signal: new AbortController().signal }).run(chunks(entries(3), 3));
    expect(exitCodeOf(r.fatal)).toBe(5);
    expect([...limited.outcome.values()]).toEqual(['sent trs_0', 'unsent', 'unsent']);
  });

  it('splits a request the API answers 400 as a whole until the offending entry stands alone', async () => {
    const api = fakeApi({ fault: (_c, emails) => (emails.some((e) => e.to === 'u7@example.com') ? '400' : 'ok') });
    const { outcome, events } = recorder();
    await new BatchSender({ ...opts, send: api.send, events, signal: new AbortController().signal }).run(chunks(entries(20), 20));
    expect(outcome.get(7)).toMatch(/^rejected API 400 Bad Request: Invalid payload/);
    expect(api.delivered).toHaveLength(19);
  });

  it('gives up on a request that keeps failing, marks its entries uncertain, and goes on', async () => {
    const api = fakeApi({ fault: (_c, emails) => (emails[0]!.to === 'u0@example.com' ? '503' : 'ok') });
    const { outcome, events } = recorder();
    const r = await new BatchSender({ ...opts, maxAttempts: 3, send: api.send, events, signal: new AbortController().signal }).run(chunks(entries(30), 10));
    expect(r.finished).toBe(true);
    expect(outcome.get(0)).toMatch(/^uncertain gave up after 3 attempts: API 503/);
    expect([...outcome.values()].filter((v) => v.startsWith('sent'))).toHaveLength(20);
  });

  it('stops the run on 401, leaving unsent what it had not settled', async () => {
    const api = fakeApi({ fault: (call) => (call >= 3 ? '401' : 'ok') });
    const { outcome, events } = recorder();
    const r = await new BatchSender({ ...opts, concurrency: 1, send: api.send, events, signal: new AbortController().signal }).run(chunks(entries(100), 10));
    expect(r.finished).toBe(false);
    expect(exitCodeOf(r.fatal)).toBe(3);
    expect([...outcome.values()].filter((v) => v.startsWith('sent'))).toHaveLength(20);
    expect(outcome.get(20)).toBe('unsent');
    expect(api.calls).toBe(3);
  });

  it('stops when nothing gets through (the API is down): exit 6', async () => {
    const api = fakeApi({ fault: () => 'drop' });
    const { events } = recorder();
    const r = await new BatchSender({ ...opts, send: api.send, events, signal: new AbortController().signal }).run(chunks(entries(500), 50));
    expect(exitCodeOf(r.fatal)).toBe(6);
    expect(api.calls).toBeLessThan(40);
  });

  it('stops with exit 6 when a short run never gets a request through: refused connections leave its entries unsent, reset ones uncertain (they may have been taken)', async () => {
    for (const fault of ['refused', 'drop'] as const) {
      const api = fakeApi({ fault: () => fault });
      const { outcome, events } = recorder();
      const r = await new BatchSender({ ...opts, maxAttempts: 3, send: api.send, events, signal: new AbortController().signal }).run(chunks(entries(2), 50));
      expect(r.finished).toBe(false);
      expect(exitCodeOf(r.fatal)).toBe(6);
      if (fault === 'refused') expect([...outcome.values()]).toEqual(['unsent', 'unsent']);
      else expect([...outcome.values()].map((v) => v.replace(/ \(.*/, ''))).toEqual(Array(2).fill('uncertain the run stopped'));
    }
  });

  it('on abort starts no new request but lets those in flight settle', async () => {
    const controller = new AbortController();
    const api = fakeApi({ fault: (call) => (call === 5 ? (controller.abort(), 'ok') : 'ok') });
    const { outcome, events } = recorder();
    const r = await new BatchSender({ ...opts, send: api.send, events, signal: controller.signal }).run(chunks(entries(1000), 10));
    expect(r.finished).toBe(false);
    const sent = [...outcome.values()].filter((v) => v.startsWith('sent')).length;
    expect(sent).toBe(api.delivered.length);
    expect(api.calls).toBeLessThanOrEqual(8);
  });

  it('on abort, a request in flight whose answer was lost is tried once more, so what reached the API is known sent', async () => {
    const controller = new AbortController();
    // Call 5 is accepted by the API but its answer is lost, at the moment of Ctrl-C.
    const api = fakeApi({ fault: (call) => (call === 5 ? (controller.abort(), 'lost') : 'ok') });
    const { outcome, events } = recorder();
    await new BatchSender({ ...opts, send: api.send, events, signal: controller.signal }).run(chunks(entries(1000), 10));
    const sent = [...outcome.values()].filter((v) => v.startsWith('sent')).length;
    expect(new Set(api.delivered.map((e) => e.idempotencyKey)).size).toBe(sent);
    expect([...outcome.values()].filter((v) => v === 'unsent')).toHaveLength(0);
  });

  it('on abort, a rate-limited request is not waited for: its entries stay unsent for a resume', async () => {
    const controller = new AbortController();
    const api = fakeApi({ fault: (call) => (call === 5 ? (controller.abort(), '429') : 'ok') });
    const { outcome, events } = recorder();
    await new BatchSender({ ...opts, send: api.send, events, signal: controller.signal }).run(chunks(entries(1000), 10));
    const unsent = [...outcome].filter(([, v]) => v === 'unsent').map(([i]) => i);
    expect(unsent.length).toBeGreaterThan(0);
    const delivered = new Set(api.delivered.map((e) => e.to));
    expect(entries(1000).filter((e) => unsent.includes(e.index) && delivered.has(e.email.to))).toEqual([]);
    // The requests in flight at Ctrl-C, and no retry of the rate-limited ones.
    expect(api.calls).toBeLessThanOrEqual(8);
  });

  it('requests still waiting for a pacing slot when the run stops (a fatal 401, or Ctrl-C) are never sent: their entries stay unsent', async () => {
    for (const stop of ['fatal', 'ctrl-c'] as const) {
      const { AbortedError, ApiError } = await import('../../src/transport/index.js');
      const controller = new AbortController();
      const sent: EmailRequest[][] = [];
      let calls = 0;
      // The first request is answered; the others wait for their slot, as a paced transport does,
      // until the signal handed to send() aborts.
      const send = async (emails: EmailRequest[], stopped?: AbortSignal) => {
        calls += 1;
        if (calls === 1) {
          await new Promise((r) => setImmediate(r));
          if (stop === 'ctrl-c') {
            controller.abort();
            sent.push(emails);
            return { successful: emails.map((e, i) => ({ id: `trs_${i}`, messageId: `m${i}`, status: 'SENT', to: e.to, type: 'raw' })), failed: [] };
          }
          throw new ApiError({ status: 401, body: { statusCode: 401, error: 'Unauthorized', message: 'bad key' } });
        }
        await new Promise((_resolve, reject) => stopped!.addEventListener('abort', () => reject(new AbortedError(stopped!.reason)), { once: true }));
        throw new Error('not reached');
      };
      const { outcome, events } = recorder();
      const r = await new BatchSender({ ...opts, send, events, signal: controller.signal }).run(chunks(entries(40), 10));
      expect(calls, stop).toBe(4);
      expect([...outcome.values()].filter((v) => v === 'unsent'), stop).toHaveLength(stop === 'fatal' ? 40 : 30);
      if (stop === 'fatal') expect(exitCodeOf(r.fatal)).toBe(3);
      else expect(sent.flat()).toHaveLength(10);
    }
  });

  it('after Ctrl-C, entries whose answer was lost still get their one try to learn their fate, not held back by the stop signal', async () => {
    const { AbortedError, ConnectionError } = await import('../../src/transport/index.js');
    const controller = new AbortController();
    const accepted = new Set<string>();
    let calls = 0;
    const send = async (emails: EmailRequest[], stopped?: AbortSignal) => {
      calls += 1;
      // A paced transport refuses to start a request once the stop signal is aborted.
      if (stopped?.aborted) throw new AbortedError(stopped.reason);
      for (const e of emails) accepted.add(e.idempotencyKey!);
      if (calls === 1) {
        // The API took them, the answer is lost, and Ctrl-C comes meanwhile.
        controller.abort();
        throw new ConnectionError('http://fake', 'ECONNRESET', new Error('socket hang up'));
      }
      return { successful: emails.map((e, i) => ({ id: `trs_${i}`, messageId: `m${i}`, status: 'SENT', to: e.to, type: 'raw' })), failed: [] };
    };
    const { outcome, events } = recorder();
    await new BatchSender({ ...opts, concurrency: 1, send, events, signal: controller.signal }).run(chunks(entries(10), 10));
    expect(accepted.size).toBe(10);
    expect([...outcome.values()].filter((v) => v.startsWith('sent'))).toHaveLength(10);
  });

  it('after Ctrl-C, a request whose answers keep getting lost is tried until its fate is known (three tries), never left "unsent" once it may have reached the API', async () => {
    const controller = new AbortController();
    // Call 5 is taken by the API and its answer lost at the moment of Ctrl-C; the next two tries lose theirs too.
    let chunk5: string | undefined;
    const api = fakeApi({
      fault: (call, emails) => {
        if (call === 5) {
          controller.abort();
          chunk5 = emails[0]!.idempotencyKey;
          return 'lost';
        }
        return emails[0]!.idempotencyKey === chunk5 && call <= 7 ? 'lost' : 'ok';
      },
    });
    const { outcome, events } = recorder();
    await new BatchSender({ ...opts, send: api.send, events, signal: controller.signal }).run(chunks(entries(1000), 10));
    const delivered = new Set(api.delivered.map((e) => e.idempotencyKey));
    const unsentButDelivered = entries(1000).filter((e) => outcome.get(e.index) === 'unsent' && delivered.has(e.email.idempotencyKey));
    expect(unsentButDelivered).toEqual([]);
    expect([...outcome.values()].filter((v) => v.startsWith('sent'))).toHaveLength(delivered.size);
  });

  it('after Ctrl-C, entries whose fate cannot be learned are uncertain (they may have been sent), not unsent', async () => {
    const controller = new AbortController();
    let chunk5: string | undefined;
    const api = fakeApi({
      fault: (call, emails) => {
        if (call === 5) {
          controller.abort();
          chunk5 = emails[0]!.idempotencyKey;
        }
        return emails[0]!.idempotencyKey === chunk5 ? 'lost' : 'ok';
      },
    });
    const { outcome, events } = recorder();
    await new BatchSender({ ...opts, send: api.send, events, signal: controller.signal }).run(chunks(entries(1000), 10));
    const lost = entries(1000).filter((e) => e.email.idempotencyKey === chunk5)[0]!.index;
    for (let i = lost; i < lost + 10; i++) expect(outcome.get(i)).toMatch(/^uncertain interrupted before its answer came/);
    const delivered = new Set(api.delivered.map((e) => e.idempotencyKey));
    expect(entries(1000).filter((e) => outcome.get(e.index) === 'unsent' && delivered.has(e.email.idempotencyKey))).toEqual([]);
    // Three tries after Ctrl-C, no more: the user asked to stop.
    expect(api.calls).toBeLessThanOrEqual(8 + 3);
  });

  it('a run stopped by a fatal error marks entries that may have reached the API uncertain, not unsent', async () => {
    // The first request is taken and its answer lost; every other request (the second, the retry) meets a 401.
    let first = true;
    const api = fakeApi({ fault: (_call, emails) => (emails[0]!.to === 'u0@example.com' && first ? ((first = false), 'lost') : '401') });
    const { outcome, events } = recorder();
    const r = await new BatchSender({ ...opts, concurrency: 2, send: api.send, events, signal: new AbortController().signal }).run(chunks(entries(20), 10));
    expect(exitCodeOf(r.fatal)).toBe(3);
    expect(api.delivered).toHaveLength(10);
    for (let i = 0; i < 10; i++) expect(outcome.get(i)).toMatch(/^uncertain the run stopped \(.*\) before its answer came \(it may have been sent/);
    // The second request was refused (401) whole: the API did not take it.
    for (let i = 10; i < 20; i++) expect(outcome.get(i)).toBe('unsent');
  });

  it('stops with exit 5 when the API asks to wait longer than five minutes', async () => {
    const { ApiError } = await import('../../src/transport/index.js');
    const { events } = recorder();
    const send = async () => {
      throw new ApiError({ status: 429, body: { statusCode: 429, error: 'Too Many Requests', message: 'later' }, retryAfterMs: 3_600_000 });
    };
    const r = await new BatchSender({ ...opts, send, events, signal: new AbortController().signal }).run(chunks(entries(100), 50));
    expect(exitCodeOf(r.fatal)).toBe(5);
  });

  it("429s with Retry-After 60 s and nothing through for over five minutes: exit 5 after exactly 7 attempts, on the sender's clock (a stepped one here: no real wait)", async () => {
    const { ApiError } = await import('../../src/transport/index.js');
    const { outcome, events } = recorder();
    let t = 1_000_000;
    const clock: Clock = {
      now: () => t,
      sleep: async (ms) => {
        t += ms;
        await Promise.resolve();
      },
    };
    const at: number[] = [];
    const send = async () => {
      at.push(t - 1_000_000);
      throw new ApiError({ status: 429, body: { statusCode: 429, error: 'Too Many Requests', message: 'later' }, retryAfterMs: 60_000 });
    };
    const started = Date.now();
    const r = await new BatchSender({ ...opts, send, events, clock, signal: new AbortController().signal }).run(chunks(entries(50), 50));
    expect(exitCodeOf(r.fatal)).toBe(5);
    // One attempt a minute from 0 to 6 min; at 6 min the last success (the start) is over 5 min ago.
    expect(at).toEqual([0, 60_000, 120_000, 180_000, 240_000, 300_000, 360_000]);
    expect([...outcome.values()]).toEqual(Array(50).fill('unsent'));
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('slows down under 429: fewer requests in flight', async () => {
    const api = fakeApi({ fault: (call) => (call % 2 === 0 ? '429' : 'ok') });
    const { outcome, events } = recorder();
    let lowest = 8;
    const sender: BatchSender = new BatchSender({
      ...opts,
      concurrency: 8,
      send: api.send,
      events: { ...events, retried: () => (lowest = Math.min(lowest, sender.concurrency)) },
      signal: new AbortController().signal,
    });
    await sender.run(chunks(entries(400), 10));
    expect(outcome.size).toBe(400);
    expect(lowest).toBeLessThanOrEqual(4);
    expect(api.delivered).toHaveLength(400);
  });
});
