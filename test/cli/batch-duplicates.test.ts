import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { batchWorld, readNdjson } from '../helpers/batch.js';

/** The run's summary: stdout's one JSON document (a failing exit puts its error inside it). */
const summaryOf = (stdout: string) => JSON.parse(stdout) as Record<string, unknown>;
let sandbox: TestSandbox;
let dir: string;
let env: Record<string, string>;
let input: string;

const order = { from: 'shop@example.com', to: 'alice@example.com', subject: 'Your order', html: '<p>Thanks</p>', idempotencyKey: 'order-1' };
const refund = { from: 'shop@example.com', to: 'bob@example.com', subject: 'Refund', html: '<p>Refunded</p>', idempotencyKey: 'order-1' };
const other = { from: 'shop@example.com', to: 'carol@example.com', subject: 'Hi', html: '<p>Hi</p>' };

batchWorld('mailroom-batch-dups-', (world) => {
  ({ sandbox, dir, env } = world);
  input = join(dir, 'orders.ndjson');
  writeFileSync(input, [order, order, refund, other].map((e) => JSON.stringify(e)).join('\n') + '\n');
});

describe('mailroom batch: one idempotencyKey, one email', () => {
  it('--dry-run: a key repeated with other content is invalid (exit 2, naming both entries); the identical repeat is a duplicate', async () => {
    const r = await runInProcess(['batch', input, '--dry-run', '--json'], { env });
    expect(r.code).toBe(2);
    const summary = summaryOf(r.stdout);
    expect(summary).toMatchObject({ total: 4, invalid: 1, duplicates: 1 });
    expect(summary.errors).toEqual([{ index: 2, line: 3, error: expect.stringMatching(/idempotencyKey "order-1" .*entry 0\b.*other content/) }]);
  });

  it('a real run: sends Alice once, reports the repeat as a skipped duplicate and Refund as invalid, never under another entry\'s id; exit 7', async () => {
    const report = join(dir, 'report.ndjson');
    const r = await runInProcess(['batch', input, '--report', report, '--json'], { env });
    expect(r.code).toBe(7);
    expect(summaryOf(r.stdout)).toMatchObject({ total: 4, sent: 2, duplicates: 1, invalid: 1, failed: 1, unsent: 0 });
    const emails = await sandbox.emails();
    expect(emails.map((e) => e.to).sort()).toEqual(['alice@example.com', 'carol@example.com']);
    const lines = new Map(readNdjson(report).map((l) => [l.index as number, l]));
    expect(lines.size).toBe(4);
    const alice = lines.get(0)!;
    expect(alice.id).toBe(emails.find((e) => e.to === 'alice@example.com')!.id);
    expect(lines.get(1)).toEqual({ index: 1, line: 2, duplicateOf: 0 });
    expect(lines.get(2)).toMatchObject({ index: 2, line: 3, error: expect.stringMatching(/idempotencyKey "order-1"/) });
    expect(lines.get(2)!.id).toBeUndefined();
  });
});

describe('mailroom batch: an entry whose own idempotencyKey an earlier send used', () => {
  it('for another email (same recipient, another sender): reported failed with both, never counted sent; the same email again is sent (the retry the key is for)', async () => {
    const first = await runInProcess(['send', '--from', 'Shop <shop@example.com>', '--to', 'alice@example.com', '--subject', 'Your order', '--html', '<p>Thanks</p>', '--idempotency-key', 'shop-7', '--json'], { env });
    expect(first.code).toBe(0);
    const id = JSON.parse(first.stdout).id as string;
    const file = join(dir, 'reused-key.ndjson');
    const billing = { from: 'Billing <billing@example.com>', to: 'alice@example.com', subject: 'Your order', html: '<p>Thanks</p>', idempotencyKey: 'shop-7' };
    const same = { ...billing, from: 'Shop <shop@example.com>', idempotencyKey: 'shop-8' };
    writeFileSync(file, `${JSON.stringify(billing)}\n${JSON.stringify(same)}\n`);
    expect((await runInProcess(['send', '--from', 'Shop <shop@example.com>', '--to', 'alice@example.com', '--subject', 'Your order', '--html', '<p>Thanks</p>', '--idempotency-key', 'shop-8'], { env })).code).toBe(0);

    const failed = join(dir, 'reused-failed.ndjson');
    const r = await runInProcess(['batch', file, '--failed', failed, '--json'], { env });
    expect(r.code).toBe(7);
    expect(summaryOf(r.stdout)).toMatchObject({ total: 2, sent: 1, failed: 1 });
    // The entry byte for byte as read; why it failed is the run's error.
    expect(readFileSync(failed, 'utf8')).toBe(`${JSON.stringify(billing)}\n`);
    expect(summaryOf(r.stdout).errors).toEqual([
      {
        index: 0,
        line: 1,
        error: `idempotency key shop-7 was already used for another email (${id}, to alice@example.com, subject "Your order"; from there "Shop <shop@example.com>", here "Billing <billing@example.com>"): the API returned that one and sent nothing new`,
      },
    ]);
    expect(await sandbox.emails()).toHaveLength(2);
  });
});
