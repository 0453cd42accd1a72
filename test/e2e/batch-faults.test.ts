import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { withSandbox, type SandboxOptions } from '../helpers/sandbox.js';
import { exactlyOnce, ndjsonInput, reportIndexes, sandboxEnv } from '../helpers/batch.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mailroom-batch-faults-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function sendThrough(config: SandboxOptions['config'], count: number, extra: string[] = []) {
  const sandbox = await withSandbox({ config });
  try {
    const input = join(dir, `in-${count}.ndjson`);
    ndjsonInput(input, count);
    const report = join(dir, `report-${Date.now()}.ndjson`);
    // A fifth of the attempts fail here: --max-retries is the whole budget of a request (1 + 8
    // attempts). The faults are seeded: the run meets the same sequence of faults every time (which
    // request meets which depends on the order requests arrive in, four at a time).
    const r = await runCli(['batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--report', report, '--json', '--max-retries', '8', ...extra], {
      env: sandboxEnv(sandbox, join(dir, 'state')),
      timeoutMs: 55_000,
    });
    return { r, emails: await sandbox.emails(), report };
  } finally {
    await sandbox.close();
  }
}

describe('mailroom batch under faults', () => {
  it('10% 503s, 5% dropped connections and 5% lost answers: every email arrives exactly once, exit 0', async () => {
    const { r, emails, report } = await sendThrough({ faults: { errorRate: 0.1, dropRate: 0.05, lostRate: 0.05, seed: 1 } }, 10_000);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ total: 10_000, sent: 10_000, failed: 0 });
    expect(exactlyOnce(emails, 10_000)).toEqual({ arrived: 10_000, distinctKeys: 10_000, distinctRecipients: 10_000 });
    expect(reportIndexes(report)).toEqual({ lines: 10_000, distinct: 10_000, min: 0, max: 9_999, withId: 10_000 });
  });

  it('a rate limit (429 with Retry-After) on top of faults: slows down, still exactly once, exit 0', async () => {
    const { r, emails } = await sendThrough({ rateLimit: 30, faults: { errorRate: 0.1, dropRate: 0.05, lostRate: 0.05, seed: 2 } }, 5_000, ['--concurrency', '8', '--size', '25']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ total: 5_000, sent: 5_000, failed: 0 });
    expect(exactlyOnce(emails, 5_000)).toEqual({ arrived: 5_000, distinctKeys: 5_000, distinctRecipients: 5_000 });
  });
});
