import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BatchRunOptions } from '../../src/batch/run-options.js';
import { runBatch } from '../../src/batch/run.js';
import { fakeApi } from './fake-api.js';
import { slowReader } from '../helpers/slow-reader.js';

// `--report -` and `--failed -` into a pipe whose reader waits: the run waits for the pipe instead of
// holding the whole report in memory. The stdout here takes nothing until the test lets it, as
// `| (sleep 2; wc -c)` would, and records how much was ever waiting in it.
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mailroom-backpressure-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ENTRIES = 20_000;

/** Resolves once `count()` has not moved for `ms`, or `done` settled first: the run is waiting (or over). */
async function stalled(count: () => number, done: Promise<unknown>, ms = 150): Promise<'stalled' | 'finished'> {
  let finished = false;
  void done.then(() => (finished = true));
  let last = -1;
  for (;;) {
    await new Promise((r) => setTimeout(r, ms));
    if (finished) return 'finished';
    if (count() === last) return 'stalled';
    last = count();
  }
}

function input(bad: (i: number) => boolean = () => false): string {
  const lines = Array.from({ length: ENTRIES }, (_, i) => JSON.stringify(bad(i) ? { to: `broken-${i}` } : { to: `u${i}@example.com`, html: `<p>${i}</p>` }));
  writeFileSync(join(dir, 'in.ndjson'), `${lines.join('\n')}\n`);
  return 'in.ndjson';
}

const options = (stdout: Writable, over: Partial<BatchRunOptions>): BatchRunOptions => ({
  input: over.input ?? input(),
  defaults: { from: 'ops@example.com', subject: 'Hi' },
  size: 50,
  concurrency: 4,
  dryRun: false,
  journalDir: join(dir, 'journals'),
  stdio: { in: new PassThrough(), out: stdout, isStdinTTY: false },
  ...over,
});

describe('batch --report - into a reader that waits', () => {
  it('the run waits for the pipe: bounded bytes waiting, few requests sent meanwhile; then every line, once', async () => {
    const reader = slowReader();
    const api = fakeApi();
    const run = runBatch({ cwd: dir, signal: new AbortController().signal, warn: () => undefined }, options(reader.out, { send: api.send, report: '-' }));
    expect(await stalled(() => api.calls, run)).toBe('stalled');
    // The whole report is about 1.2 MB; what waits is one 64 KiB write and the lines of the requests in flight.
    expect(reader.peak).toBeLessThan(192 * 1024);
    expect(api.calls).toBeLessThan(ENTRIES / 50 / 4);
    reader.open();
    const summary = await run;
    expect(summary).toMatchObject({ total: ENTRIES, sent: ENTRIES, failed: 0 });
    const indexes = reader.text().trimEnd().split('\n').map((l) => (JSON.parse(l) as { index: number }).index);
    expect(indexes.sort((a, b) => a - b)).toEqual(Array.from({ length: ENTRIES }, (_, i) => i));
  });

  it('invalid entries alone (no request at all) and --failed -: reading waits too', async () => {
    const reader = slowReader();
    const run = runBatch({ cwd: dir, signal: new AbortController().signal, warn: () => undefined }, options(reader.out, { input: input(() => true), dryRun: true, failed: '-' }));
    const read = () => reader.text().length;
    expect(await stalled(read, run)).toBe('stalled');
    expect(reader.peak).toBeLessThan(192 * 1024);
    reader.open();
    const summary = await run;
    expect(summary).toMatchObject({ total: ENTRIES, invalid: ENTRIES });
    expect(reader.text().trimEnd().split('\n')).toHaveLength(ENTRIES);
  });

  it('a resumed run rewrites the journal into the report as the pipe takes it', async () => {
    const first = await runBatch({ cwd: dir, signal: new AbortController().signal, warn: () => undefined }, options(new PassThrough().resume(), { send: fakeApi().send, resume: join(dir, 'run.journal') }));
    expect(first.sent).toBe(ENTRIES);
    const reader = slowReader();
    const api = fakeApi();
    const run = runBatch({ cwd: dir, signal: new AbortController().signal, warn: () => undefined }, options(reader.out, { send: api.send, report: '-', resume: join(dir, 'run.journal'), input: 'in.ndjson' }));
    expect(await stalled(() => reader.text().length, run)).toBe('stalled');
    expect(reader.peak).toBeLessThan(192 * 1024);
    reader.open();
    expect(await run).toMatchObject({ total: ENTRIES, skipped: ENTRIES });
    expect(reader.text().trimEnd().split('\n')).toHaveLength(ENTRIES);
    expect(api.calls).toBe(0);
  });
});
