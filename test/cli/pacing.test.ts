import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpTransport } from '../../src/transport/http.js';
import { runInProcess } from '../helpers/context.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { exactlyOnce, ndjsonInput } from '../helpers/batch.js';

/** Pacing under the sandbox's rate limit, through the whole CLI and through the transport alone. */
let dir: string;
let sandbox: TestSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mailroom-pacing-'));
  sandbox = await withSandbox({ config: { rateLimit: 5 } });
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const answers = (stderr: string, status: number) => stderr.split('\n').filter((l) => l.startsWith(`← ${status} `)).length;

async function batchOf100(env: Record<string, string> = {}) {
  await sandbox.reset();
  const input = join(dir, 'hundred.ndjson');
  ndjsonInput(input, 100);
  const state = mkdtempSync(join(dir, 'state-'));
  // 20 requests of 5, 4 in flight, against 5 requests a second.
  return runInProcess(['batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--size', '5', '--concurrency', '4', '--verbose', '--json'], {
    env: { MAILROOM_BASE_URL: sandbox.baseUrl, MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_STATE_DIR: state, ...env },
  });
}

describe('pacing under a rate limit', () => {
  it('batch at 5 requests/s: 429s at most 10% of the 20 requests, every email sent exactly once', async () => {
    const r = await batchOf100();
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ sent: 100, failed: 0, uncertain: 0, unsent: 0 });
    expect(answers(r.stderr, 200)).toBe(20);
    expect(answers(r.stderr, 429)).toBeLessThanOrEqual(2);
    expect(r.stderr).toMatch(/paced \d+ ms to stay within the API's rate limit/);
    expect(exactlyOnce(await sandbox.emails(), 100)).toEqual({ arrived: 100, distinctKeys: 100, distinctRecipients: 100 });
  });

  it('MAILROOM_PACING=off sends as soon as asked: the same batch draws far more 429s (what pacing saves)', async () => {
    const r = await batchOf100({ MAILROOM_PACING: 'off' });
    expect(r.code).toBe(0);
    expect(answers(r.stderr, 200)).toBe(20);
    expect(answers(r.stderr, 429)).toBeGreaterThan(4);
    expect(r.stderr).not.toMatch(/paced \d+ ms/);
    expect(exactlyOnce(await sandbox.emails(), 100)).toEqual({ arrived: 100, distinctKeys: 100, distinctRecipients: 100 });
  });

  it('one transport shared by 12 concurrent requests (the library path): all succeed, at most one 429', async () => {
    await sandbox.reset();
    const statuses: number[] = [];
    const t = createHttpTransport({
      baseUrl: sandbox.baseUrl,
      apiKey: sandbox.apiKey,
      dispatcher: new Agent(),
      userAgent: 'mailroom-test',
      timeoutMs: 10_000,
      maxRetries: 3,
      log: (line) => {
        const m = /^← (\d{3}) /.exec(line);
        if (m) statuses.push(Number(m[1]));
      },
    });
    try {
      const results = await Promise.all(Array.from({ length: 12 }, () => t.request({ method: 'GET', path: '/v1/api-keys/check' })));
      expect(results.map((x) => x.status)).toEqual(Array(12).fill(200));
      expect(statuses.filter((s) => s === 429).length).toBeLessThanOrEqual(1);
    } finally {
      await t.close();
    }
  });
});
