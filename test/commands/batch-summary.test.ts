import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { printSummary, summaryJson } from '../../src/commands/shared/batch-summary.js';
import type { BatchSummary } from '../../src/batch/run-options.js';

const base: BatchSummary = {
  total: 0, sent: 0, scheduled: 0, failed: 0, invalid: 0, uncertain: 0, skipped: 0, duplicates: 0, unsent: 0,
  durationMs: 1000, emailsPerSecond: 0, runId: 'r1', journal: '/tmp/r1.journal', dryRun: false, interrupted: false, errors: [], resumed: false,
};
const printed = (s: Partial<BatchSummary>) => {
  const err = new PassThrough();
  let text = '';
  err.on('data', (d: Buffer) => (text += d.toString()));
  printSummary(err, { ...base, ...s }, 'in.ndjson');
  return text;
};

describe('the batch summary reads as a person would write it', () => {
  it('one entry, one email: singular', () => {
    expect(printed({ total: 1, sent: 1 })).toMatch(/^Sent 1 of 1 email in 1\.0 s/);
    expect(printed({ total: 1, dryRun: true })).toMatch(/^Dry run: 1 entry, 1 valid, 0 invalid; nothing sent\./);
    expect(printed({ total: 3, sent: 2, duplicates: 1 })).toContain(', 1 duplicate not sent');
  });

  it('a run under a second says its milliseconds, not "0.0 s"', () => {
    expect(printed({ total: 1, sent: 1, durationMs: 27, emailsPerSecond: 37 })).toMatch(/^Sent 1 of 1 email in 27 ms \(37\/s\)/);
    expect(printed({ total: 1, sent: 1, durationMs: 999.6 })).toMatch(/^Sent 1 of 1 email in 1\.0 s /);
    expect(printed({ total: 9, sent: 9, durationMs: 12_345 })).toMatch(/^Sent 9 of 9 emails in 12\.3 s /);
  });

  it('emails only scheduled (sendAt) say "Scheduled", a mix says both', () => {
    expect(printed({ total: 2, sent: 2, scheduled: 2 })).toMatch(/^Scheduled 2 of 2 emails in /);
    expect(printed({ total: 3, sent: 3, scheduled: 2 })).toMatch(/^Sent 1 and scheduled 2 of 3 emails in /);
    expect(summaryJson({ ...base, total: 2, sent: 2, scheduled: 2 })).toMatchObject({ sent: 2, scheduled: 2 });
  });

  it('a stopped run says what was read but not sent in plain words', () => {
    const two = printed({ total: 2, unsent: 2, interrupted: true });
    expect(two).toMatch(/^Stopped after sending 0 emails in 1\.0 s \(0\/s\): 0 failed\.\n {2}2 entries read but not sent; the input was read no further\.\n/);
    expect(two).not.toContain('(any entries after them were not read)');
    expect(printed({ total: 5, sent: 1, unsent: 1, failed: 3, interrupted: true })).toMatch(/^Stopped after sending 1 email in .*\n {2}1 entry read but not sent;/);
    expect(printed({ total: 4, sent: 4, interrupted: true })).toContain('\n  every entry read was settled; the input was read no further.\n');
    expect(printed({ total: 4, sent: 3, scheduled: 3, unsent: 1, interrupted: true })).toMatch(/^Stopped after scheduling 3 emails/);
  });

  it('an interrupted run with entries whose answer never came says they may have been sent, not that all was journaled', () => {
    expect(printed({ total: 100, sent: 50, failed: 50, uncertain: 50, interrupted: true })).toContain(
      '\n  interrupted: the requests in flight were settled and journaled, but for 50 entries whose answer never came (they may have been sent; the resume settles them under the same keys).\n',
    );
    expect(printed({ total: 2, sent: 1, failed: 1, uncertain: 1, interrupted: true })).toContain('but for 1 entry whose answer never came (it may have been sent; the resume settles it under');
    expect(printed({ total: 2, sent: 1, unsent: 1, interrupted: true })).toContain('\n  interrupted: the requests in flight were settled and journaled.\n');
  });
});
