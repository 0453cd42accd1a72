import { describe, expect, test } from 'vitest';
import { seededRandom } from '../../src/sandbox/faults.js';
import { startSandbox } from '../../src/sandbox/library.js';

const email = (subject: string, idempotencyKey?: string) => ({
  from: 'shop@example.com',
  to: 'ada@customer.test',
  subject,
  html: '<p>Hi</p>',
  ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
});

async function send(baseUrl: string, apiKey: string, body = email('Hi')): Promise<{ status: number; body: { email?: { id: string } } }> {
  const res = await fetch(`${baseUrl}/v1/emails`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as { email?: { id: string } } };
}

async function statuses(baseUrl: string, apiKey: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await send(baseUrl, apiKey)).status);
  return out;
}

/** The statuses the seeded draws say `n` requests meet with errorRate alone, after `skip` draws. */
const predicted = (seed: number, rate: number, skip: number, n: number) => {
  const draw = seededRandom(seed);
  for (let i = 0; i < skip; i++) draw();
  return Array.from({ length: n }, () => (draw() < rate ? 503 : 200));
};

describe("a workspace's reset leaves every other workspace as it was (parallel workers, one sandbox)", () => {
  test("the rate-limit windows of another workspace's keys are untouched; its own keys' start over", async () => {
    // Half a request per second: one request fills a key's bucket for two seconds.
    const sb = await startSandbox({ config: { rateLimit: 0.5 }, log: () => undefined });
    try {
      const a = await sb.workspace({ name: 'worker A' });
      const b = await sb.workspace({ name: 'worker B' });
      expect((await send(sb.baseUrl, b.apiKey)).status).toBe(200);
      expect((await send(sb.baseUrl, a.apiKey)).status).toBe(200);
      expect((await send(sb.baseUrl, sb.apiKey)).status).toBe(200);
      await a.reset();
      // A's own window starts over; B's and the first workspace's do not.
      expect((await send(sb.baseUrl, a.apiKey)).status).toBe(200);
      expect((await send(sb.baseUrl, b.apiKey)).status).toBe(429);
      expect((await send(sb.baseUrl, sb.apiKey)).status).toBe(429);
      await b.reset();
      expect((await send(sb.baseUrl, b.apiKey)).status).toBe(200);
    } finally {
      await sb.close();
    }
  });

  test('seeded faults: each workspace meets its own sequence, restarted by its own reset only', async () => {
    const sb = await startSandbox({ config: { faults: { errorRate: 0.5, seed: 42 } }, log: () => undefined });
    try {
      const a = await sb.workspace({ name: 'worker A' });
      const b = await sb.workspace({ name: 'worker B' });
      expect(await statuses(sb.baseUrl, b.apiKey, 10)).toEqual(predicted(42, 0.5, 0, 10));
      // A's requests do not move B's place in its sequence, and A starts at the beginning of its own.
      expect(await statuses(sb.baseUrl, a.apiKey, 10)).toEqual(predicted(42, 0.5, 0, 10));
      await a.reset();
      expect(await statuses(sb.baseUrl, b.apiKey, 10)).toEqual(predicted(42, 0.5, 10, 10));
      expect(await statuses(sb.baseUrl, a.apiKey, 10)).toEqual(predicted(42, 0.5, 0, 10));
      // The first workspace's sequence (also the one of requests without a known key) is its own too.
      expect(await statuses(sb.baseUrl, sb.apiKey, 10)).toEqual(predicted(42, 0.5, 0, 10));
      await b.reset();
      expect(await statuses(sb.baseUrl, b.apiKey, 10)).toEqual(predicted(42, 0.5, 0, 10));
      expect(await statuses(sb.baseUrl, sb.apiKey, 10)).toEqual(predicted(42, 0.5, 10, 10));
    } finally {
      await sb.close();
    }
  });

  test("emails, idempotency keys, contacts and counts of another workspace stay through a reset", async () => {
    const sb = await startSandbox({ log: () => undefined });
    try {
      const a = await sb.workspace({ name: 'worker A' });
      const b = await sb.workspace({ name: 'worker B' });
      const first = await send(sb.baseUrl, b.apiKey, email('B 1', 'order-1'));
      await send(sb.baseUrl, a.apiKey, email('A 1', 'order-1'));
      const before = await fetch(`${sb.baseUrl}/_sandbox/emails?workspace=${b.workspaceId}`).then((r) => r.json());
      const workspacesBefore = await fetch(`${sb.baseUrl}/_sandbox/workspaces`).then((r) => r.json());
      await a.reset();
      expect(await fetch(`${sb.baseUrl}/_sandbox/emails?workspace=${b.workspaceId}`).then((r) => r.json())).toEqual(before);
      const after = (await fetch(`${sb.baseUrl}/_sandbox/workspaces`).then((r) => r.json())) as { items: { id: string; emails: number }[] };
      expect(after.items.find((w) => w.id === b.workspaceId)).toEqual((workspacesBefore as typeof after).items.find((w) => w.id === b.workspaceId));
      expect(after.items.find((w) => w.id === a.workspaceId)!.emails).toBe(0);
      // B's idempotency key still answers its first email; A's was forgotten, so A sends anew.
      expect((await send(sb.baseUrl, b.apiKey, email('B 1', 'order-1'))).body.email!.id).toBe(first.body.email!.id);
      expect((await a.emails()).length).toBe(0);
      await send(sb.baseUrl, a.apiKey, email('A 1', 'order-1'));
      expect((await a.emails()).map((e) => e.subject)).toEqual(['A 1']);
    } finally {
      await sb.close();
    }
  });
});
