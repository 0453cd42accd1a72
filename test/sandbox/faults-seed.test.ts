import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/sandbox/faults.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { startInProcess } from '../helpers/context.js';
import { withSandbox } from '../helpers/sandbox.js';

const email = { from: 'ops@example.com', to: 'ada@example.com', subject: 'Hi', html: '<p>Hi</p>' };

/** The statuses of `n` sends, one after another. */
async function statuses(baseUrl: string, apiKey: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${baseUrl}/v1/emails`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(email) });
    await res.arrayBuffer();
    out.push(res.status);
  }
  return out;
}

/** What the seeded draws say the n-th request meets with errorRate alone: 503 below the rate. */
const predicted = (seed: number, rate: number, n: number) => {
  const draw = seededRandom(seed);
  return Array.from({ length: n }, () => (draw() < rate ? 503 : 200));
};

describe('the sandbox fault injection with a seed', () => {
  it('the n-th request meets the fault the seeded draws say, on every run and again after a reset; another seed, other faults', async () => {
    const expected = predicted(42, 0.5, 40);
    expect(expected.filter((s) => s === 503).length).toBeGreaterThan(5);
    expect(expected.filter((s) => s === 200).length).toBeGreaterThan(5);
    const a = await withSandbox({ config: { faults: { errorRate: 0.5, seed: 42 } } });
    const b = await withSandbox({ config: { faults: { errorRate: 0.5, seed: 42 } } });
    const c = await withSandbox({ config: { faults: { errorRate: 0.5, seed: 43 } } });
    try {
      expect(await statuses(a.baseUrl, a.apiKey, 40)).toEqual(expected);
      expect(await statuses(b.baseUrl, b.apiKey, 40)).toEqual(expected);
      await a.reset();
      expect(await statuses(a.baseUrl, a.apiKey, 40)).toEqual(expected);
      expect(await statuses(c.baseUrl, c.apiKey, 40)).toEqual(predicted(43, 0.5, 40));
      expect(predicted(43, 0.5, 40)).not.toEqual(expected);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });

  it('a seed that is not a whole number from 0 to 2^32 - 1 is refused in one line', async () => {
    await expect(startSandbox({ config: { faults: { seed: -1 } } })).rejects.toThrow(/^sandbox config: faults\.seed /);
    await expect(startSandbox({ config: { faults: { seed: 1.5 } } })).rejects.toThrow(/^sandbox config: faults\.seed /);
  });

  it('mailroom sandbox --fault-seed: the same faults as the config seed', async () => {
    const cmd = startInProcess(['sandbox', '--port', '0', '--json', '--error-rate', '0.5', '--fault-seed', '42'], { env: { NO_COLOR: '1' } });
    try {
      const { baseUrl, apiKey } = JSON.parse(await cmd.waitForLine((l) => l.startsWith('{'))) as { baseUrl: string; apiKey: string };
      expect(await statuses(baseUrl, apiKey, 40)).toEqual(predicted(42, 0.5, 40));
    } finally {
      expect((await cmd.stop()).code).toBe(130);
    }
  });
});
