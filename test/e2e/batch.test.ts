import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { batchWorld, entry, exactlyOnce, ndjsonInput, recipient, reportIndexes } from '../helpers/batch.js';

const N = 10_000;
let sandbox: TestSandbox;
let dir: string;
let env: Record<string, string>;

batchWorld('mailroom-batch-e2e-', (world) => ({ sandbox, dir, env } = world));

const formats: Array<[string, string, () => string]> = [
  ['a JSON array', 'emails.json', () => `[\n${Array.from({ length: N }, (_, i) => `  ${JSON.stringify(entry(i))}`).join(',\n')}\n]\n`],
  ['{ "emails": [...] }', 'wrapped.json', () => JSON.stringify({ emails: Array.from({ length: N }, (_, i) => entry(i)) }, null, 2)],
  ['NDJSON', 'emails.ndjson', () => `${Array.from({ length: N }, (_, i) => JSON.stringify(entry(i))).join('\n')}\n`],
  ['CSV', 'emails.csv', () => `to,subject,html\n${Array.from({ length: N }, (_, i) => `${recipient(i)},Hello ${i},"<p>Hello ${i}</p>"`).join('\n')}\n`],
];

// Spawned: 10,000 emails per input format, the CLI and the sandbox each on a core, and the progress bar
// on a real terminal. Bad entries, stdin, dry runs and bad input run in-process in test/cli/batch.test.ts.

describe('mailroom batch end to end', () => {
  for (const [name, file, make] of formats) {
    it(`sends ${N.toLocaleString('en-US')} emails from ${name}, each exactly once, with a one-to-one report`, async () => {
      // Each format's first run: the others' journals (the same 10,000 emails) would have it refused.
      rmSync(join(dir, 'state'), { recursive: true, force: true });
      const input = join(dir, file);
      writeFileSync(input, make());
      const report = join(dir, `${file}.report.ndjson`);
      const r = await runCli(['batch', input, '--from', 'ops@example.com', '--report', report, '--json'], { env });
      // Nothing but the progress lines a long run prints when stderr is not a terminal (docs/batch.md).
      expect(r.stderr.replace(/^batch: .*\n/gm, '')).toBe('');
      expect(r.code).toBe(0);
      const summary = JSON.parse(r.stdout);
      expect(summary).toMatchObject({ total: N, sent: N, failed: 0, skipped: 0, report, journal: expect.stringContaining(join(dir, 'state', 'batches')) });
      const counts = exactlyOnce(await sandbox.emails(), N);
      expect(counts).toEqual({ arrived: N, distinctKeys: N, distinctRecipients: N });
      expect(reportIndexes(report)).toEqual({ lines: N, distinct: N, min: 0, max: N - 1, withId: N });
      const inbox = await sandbox.emails();
      const byTo = new Map(inbox.map((e) => [e.to, e]));
      expect(byTo.get(recipient(1234))).toMatchObject({ subject: 'Hello 1234', from: 'ops@example.com', idempotencyKey: `mr-${summary.runId}-1234` });
    });
  }

  it('draws a progress bar and a summary on a terminal', async () => {
    const input = join(dir, 'tty.ndjson');
    ndjsonInput(input, 2000);
    const r = await runCli(['batch', input, '--from', 'ops@example.com', '--subject', 'Hi'], { env, tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/[\d,]+ sent, 0 failed \| [\d,]+\/s, 4 in flight \| ETA/);
    // Under a second the summary says its milliseconds, from a second on its seconds.
    expect(r.stdout).toMatch(/Sent 2,000 of 2,000 emails in (\d+ ms|\d+\.\d s) \([\d,.]+\/s\): 0 failed\./);
  });
});
