import { createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { withSandbox } from '../helpers/sandbox.js';
import { exactlyOnce, ndjsonInput, readNdjson, sandboxEnv } from '../helpers/batch.js';


/** The run's summary: stdout's one JSON document (a failing exit puts its error inside it). */
const summaryOf = (stdout: string) => JSON.parse(stdout) as Record<string, unknown>;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mailroom-batch-retries-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const posts = (stderr: string) => stderr.split('\n').filter((l) => /→ POST .*\/v1\/emails\/batch/.test(l)).length;

describe('mailroom batch: one retry budget', () => {
  it('a server answering 503 forever: --max-retries 3 makes exactly 4 HTTP attempts for the request, then exit 6', async () => {
    const sandbox = await withSandbox({ config: { faults: { errorRate: 1 } } });
    try {
      const input = join(dir, 'one.ndjson');
      ndjsonInput(input, 1);
      const r = await runInProcess(['batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--max-retries', '3', '--verbose'], {
        env: sandboxEnv(sandbox, join(dir, 'state')),
      });
      expect(posts(r.stderr)).toBe(4);
      expect(r.code).toBe(6);
    } finally {
      await sandbox.close();
    }
  });

  it('--max-retries 0 against an API that never answers gives up after about one --timeout, exit 6', async () => {
    const sockets = new Set<Socket>();
    const server: Server = createServer((s) => {
      sockets.add(s);
      s.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const input = join(dir, 'dead.ndjson');
      ndjsonInput(input, 120);
      const r = await runInProcess(['batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--max-retries', '0', '--timeout', '1000', '--verbose', '--json'], {
        env: { MAILROOM_BASE_URL: `http://127.0.0.1:${port}`, MAILROOM_API_KEY: 'sk_dead', MAILROOM_STATE_DIR: join(dir, 'state') },
      });
      expect(r.code).toBe(6);
      // Until the first answer only one request is in flight (pacing learns the rate limit from
      // it); it times out, nothing got through, the run stops, and the two requests waiting behind
      // it are never sent (their entries stay unsent for a resume). The 50 of the request that timed
      // out may have been taken by a slow API: uncertain, not "not sent".
      expect(posts(r.stderr)).toBe(1);
      expect(summaryOf(r.stdout)).toMatchObject({ sent: 0, uncertain: 50, unsent: 70 });
      // The run's own duration (process start-up aside, which a loaded machine stretches): one
      // timeout of 1 s; a second attempt, or the waiting requests sent after it, would pass 2 s.
      const { durationMs } = summaryOf(r.stdout) as { durationMs: number };
      expect(durationMs).toBeGreaterThanOrEqual(1000);
      expect(durationMs).toBeLessThan(2000);
    } finally {
      for (const s of sockets) s.destroy();
      server.close();
    }
  });
});

describe('mailroom batch: account-wide refusals are not verdicts on entries', () => {
  it('the monthly limit stops the run (exit 5) and leaves the refused entries unsent; a resume after the limit is raised sends them, each exactly once', async () => {
    const data = join(dir, 'limit-state.json');
    const first = await withSandbox({ dataFile: data, config: { monthlyLimit: 120 } });
    const port = Number(new URL(first.baseUrl).port);
    const env = sandboxEnv(first, join(dir, 'state'));
    const input = join(dir, 'limit.ndjson');
    ndjsonInput(input, 500);
    const journal = join(dir, 'limit.journal');
    const args = ['batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--resume', journal, '--concurrency', '1'];
    let r;
    try {
      r = await runInProcess([...args, '--json'], { env });
      expect(r.code).toBe(5);
      expect(summaryOf(r.stdout)).toMatchObject({ total: expect.any(Number), sent: 120, failed: 0 });
      // The journal holds no refusal: nothing in it would stop a resume from sending those entries.
      expect(readNdjson(journal).filter((l) => 'fail' in l)).toEqual([]);
    } finally {
      await first.close();
    }
    const raised = await withSandbox({ dataFile: data, port, apiKey: first.apiKey });
    try {
      const report = join(dir, 'limit.report.ndjson');
      r = await runInProcess([...args, '--report', report, '--json'], { env });
      // Nothing but the progress lines a long run prints when stderr is not a terminal (docs/batch.md).
      expect(r.stderr.replace(/^batch: .*\n/gm, '')).toBe('');
      expect(r.code).toBe(0);
      expect(summaryOf(r.stdout)).toMatchObject({ total: 500, sent: 380, skipped: 120, failed: 0 });
      expect(exactlyOnce(await raised.emails(), 500)).toEqual({ arrived: 500, distinctKeys: 500, distinctRecipients: 500 });
    } finally {
      await raised.close();
    }
  });
});
