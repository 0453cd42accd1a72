import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BatchError, Mailroom, ValidationError, type BatchSummary } from '../../src/library/index.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';

const entries = (n: number, subject = 'Hello') => Array.from({ length: n }, (_, i) => ({ to: `user${i}@example.com`, subject, html: `<p>${i}</p>` }));

describe('emails.batch: the `mailroom batch` engine through the library', () => {
  let sandbox: TestSandbox;
  let mailroom: Mailroom;
  let dir: string;
  beforeAll(async () => {
    sandbox = await withSandbox();
    mailroom = new Mailroom({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl, workspaceId: sandbox.workspaceId, env: { MAILROOM_STATE_DIR: mkdtempSync(join(tmpdir(), 'mailroom-lib-state-')) } });
  });
  afterAll(async () => {
    await mailroom.close();
    await sandbox.close();
  });
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mailroom-lib-batch-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  afterEach(() => sandbox.reset());

  it('sends every entry of an array exactly once, in requests of `size`, with a journal, a report and defaults', async () => {
    const journal = join(dir, 'all.journal');
    const report = join(dir, 'all.report.ndjson');
    const summary = await mailroom.emails.batch(entries(120), { journal, report, size: 25, concurrency: 3, defaults: { from: 'ops@example.com' } });
    expect(summary).toMatchObject({ total: 120, sent: 120, failed: 0, skipped: 0, journal, interrupted: false, resumed: false });
    const caught = await sandbox.emails();
    expect(caught).toHaveLength(120);
    expect(new Set(caught.map((e) => e.to)).size).toBe(120);
    expect(caught.every((e) => e.from === 'ops@example.com' && e.idempotencyKey === `mr-${summary.runId}-${e.to.replace(/\D/g, '')}`)).toBe(true);
    expect(readFileSync(report, 'utf8').trim().split('\n')).toHaveLength(120);
  });

  it('entries with a sendAt ahead: the summary counts them as scheduled, a field its type declares', async () => {
    const sendAt = new Date(Date.now() + 3_600_000).toISOString();
    const summary: BatchSummary = await mailroom.emails.batch(
      entries(4).map((e, i) => (i < 3 ? { ...e, sendAt } : e)),
      { journal: join(dir, 'scheduled.journal'), defaults: { from: 'ops@example.com' } },
    );
    expect(summary).toMatchObject({ total: 4, sent: 4, scheduled: 3, failed: 0 });
    const scheduled: number = summary.scheduled;
    expect(scheduled).toBe(3);
  });

  it('interrupted by its signal, then resumed with the same journal, a fifth of answers lost: every email sent once, none twice', async () => {
    // Seeded: the same fifth of the answers is lost on every run.
    const lossy = await withSandbox({ config: { faults: { lostRate: 0.2, seed: 5 } } });
    const client = new Mailroom({ apiKey: lossy.apiKey, baseUrl: lossy.baseUrl, maxRetries: 10, env: {} });
    try {
      const journal = join(dir, 'resume.journal');
      const stop = new AbortController();
      const first = await client.emails.batch(entries(200), {
        journal,
        size: 10,
        concurrency: 2,
        defaults: { from: 'ops@example.com' },
        signal: stop.signal,
        onProgress: (p) => {
          if (p.sent >= 40) stop.abort();
        },
      });
      expect(first.interrupted).toBe(true);
      expect(first.sent).toBeGreaterThanOrEqual(40);
      expect(first.sent).toBeLessThan(200);
      const second = await client.emails.batch(entries(200), { journal, size: 10, concurrency: 2, defaults: { from: 'ops@example.com' } });
      expect(second).toMatchObject({ resumed: true, interrupted: false, runId: first.runId, failed: 0 });
      expect(second.skipped).toBe(first.sent);
      expect(second.skipped + second.sent).toBe(200);
      const caught = await lossy.emails();
      expect(caught).toHaveLength(200);
      expect(new Set(caught.map((e) => e.to)).size).toBe(200);
    } finally {
      await client.close();
      await lossy.close();
    }
  });

  it('a resume refuses other entries than its run read, before a key is reused for them', async () => {
    const journal = join(dir, 'changed.journal');
    const stop = new AbortController();
    const first = await mailroom.emails.batch(entries(60, 'Resumed'), { journal, size: 10, concurrency: 1, defaults: { from: 'ops@example.com' }, signal: stop.signal, onProgress: (p) => p.sent >= 20 && stop.abort() });
    expect(first.interrupted).toBe(true);
    const before = (await sandbox.emails()).length;
    const changed = entries(60, 'Resumed');
    changed[3] = { ...changed[3]!, subject: 'Changed' };
    const err = (await mailroom.emails.batch(changed, { journal, size: 10, defaults: { from: 'ops@example.com' } }).catch((e: unknown) => e)) as BatchError;
    expect(err).toBeInstanceOf(BatchError);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toMatch(/the input differs from the run being resumed \((at or before )?entry 3\b/);
    expect(err.summary.sent).toBe(0);
    expect(await sandbox.emails()).toHaveLength(before);
  });

  it('a resume refuses another API host and another key unless told (allowOtherKey)', async () => {
    const journal = join(dir, 'api.journal');
    const stop = new AbortController();
    await mailroom.emails.batch(entries(40, 'Elsewhere'), { journal, size: 10, concurrency: 1, defaults: { from: 'ops@example.com' }, signal: stop.signal, onProgress: (p) => p.sent >= 10 && stop.abort() });
    const sent = (await sandbox.emails()).length;

    const elsewhere = await withSandbox();
    const other = new Mailroom({ apiKey: elsewhere.apiKey, baseUrl: elsewhere.baseUrl, env: {} });
    try {
      const err = await other.emails.batch(entries(40, 'Elsewhere'), { journal, defaults: { from: 'ops@example.com' } }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as Error).message).toContain(`the run of this journal was sent to ${sandbox.baseUrl}, but this run would send to ${elsewhere.baseUrl}`);
      expect(await elsewhere.emails()).toHaveLength(0);
    } finally {
      await other.close();
      await elsewhere.close();
    }

    const key = await mailroom.apiKeys.create({ displayName: 'rotated', role: 'API_USER' });
    const rotated = new Mailroom({ apiKey: key.secretKey!, baseUrl: sandbox.baseUrl, env: {} });
    try {
      const err = await rotated.emails.batch(entries(40, 'Elsewhere'), { journal, defaults: { from: 'ops@example.com' } }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as Error).message).toMatch(/another API key than the journal's run used/);
      expect((err as Error).message).not.toContain(key.secretKey!);
      expect(await sandbox.emails()).toHaveLength(sent);
      const done: BatchSummary = await rotated.emails.batch(entries(40, 'Elsewhere'), { journal, allowOtherKey: true, defaults: { from: 'ops@example.com' } });
      expect(done.skipped + done.sent).toBe(40);
      expect(await sandbox.emails()).toHaveLength(40);
    } finally {
      await rotated.close();
    }
  });

  it('reads a byte stream of NDJSON and a file path as `mailroom batch` reads them; invalid entries fail alone', async () => {
    const lines = entries(5).map((e) => JSON.stringify(e));
    lines.splice(2, 0, '{"to":"broken"');
    const streamed = await mailroom.emails.batch(Readable.from([`${lines.join('\n')}\n`]), { defaults: { from: 'ops@example.com' } });
    expect(streamed).toMatchObject({ total: 6, sent: 5, failed: 1, invalid: 1 });
    expect(streamed.errors[0]).toMatchObject({ index: 2, line: 3 });
    expect(streamed.journal).toMatch(/\.journal$/);

    const file = join(dir, 'emails.csv');
    writeFileSync(file, 'to,subject,html\nann@example.com,Hi,<p>a</p>\nbob@example.com,Hi,<p>b</p>\n');
    const fromFile = await mailroom.emails.batch(file, { journal: join(dir, 'csv.journal'), defaults: { from: 'ops@example.com' } });
    expect(fromFile).toMatchObject({ total: 2, sent: 2 });
    expect((await sandbox.emails()).map((e) => e.to)).toEqual(expect.arrayContaining(['ann@example.com', 'bob@example.com']));
  });

  it('the same values, or the same entries as a byte stream, sent again: refused with nothing sent; newRun sends them again on purpose', async () => {
    const values = entries(30, 'Twice');
    const defaults = { from: 'ops@example.com' };
    expect(await mailroom.emails.batch(values, { defaults })).toMatchObject({ total: 30, sent: 30 });
    const again = (await mailroom.emails.batch(values, { defaults }).catch((e: unknown) => e)) as ValidationError & { hints: string[] };
    expect(again).toBeInstanceOf(ValidationError);
    expect(again.message).toMatch(new RegExp(`^the entries: its 30 entries are the ones run \\w{12} sent to ${sandbox.baseUrl} with this API key \\(the journal \\S+ records 30 emails sent; finished, `));
    expect(again.hints).toContain('to send every entry again on purpose: add newRun');
    const ndjson = `${values.map((e) => JSON.stringify(e)).join('\n')}\n`;
    const streamed = (await mailroom.emails.batch(Readable.from([ndjson]), { defaults }).catch((e: unknown) => e)) as Error;
    expect(streamed).toBeInstanceOf(ValidationError);
    expect(streamed.message).toMatch(/^the stream: its 30 entries are the ones run \w{12} sent /);
    expect(await sandbox.emails()).toHaveLength(30);
    expect(await mailroom.emails.batch(values, { defaults, newRun: true })).toMatchObject({ total: 30, sent: 30 });
    expect(await sandbox.emails()).toHaveLength(60);
  });

  it('refuses bad options before reading anything', async () => {
    await expect(mailroom.emails.batch(entries(1), { size: 51 })).rejects.toThrow(/size must be an integer from 1 to 50, got 51/);
    await expect(mailroom.emails.batch(entries(1), { concurrency: 0 })).rejects.toBeInstanceOf(ValidationError);
    await expect(mailroom.emails.batch(42 as never)).rejects.toThrow(/the source must be a path, an iterable or an async iterable/);
    expect(await sandbox.emails()).toHaveLength(0);
  });

  it('names its options as the library does, never as the CLI flags', async () => {
    const bad = join(dir, 'bad.journal');
    writeFileSync(bad, 'not a journal\n');
    const err = (await mailroom.emails.batch(entries(2), { journal: bad }).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe(`journal ${bad}: not a mailroom batch journal`);

    // A report to "-" would go to the program's own stdout: refused, nothing read or sent.
    const dash = (await mailroom.emails.batch(entries(2), { report: '-' }).catch((e: unknown) => e)) as Error;
    expect(dash).toBeInstanceOf(ValidationError);
    expect(dash.message).toBe('report -: there is no stdout here; give a file');

    // A file an earlier run sent: the way on is said in the library's words. (Entries of its own:
    // earlier tests of this file sent longer runs of entries(n), whose first requests start with these.)
    const file = join(dir, 'twice.ndjson');
    writeFileSync(file, `${entries(2, 'In library words').map((e) => JSON.stringify(e)).join('\n')}\n`);
    await mailroom.emails.batch(file, { defaults: { from: 'ops@example.com' } });
    const again = (await mailroom.emails.batch(file, { defaults: { from: 'ops@example.com' } }).catch((e: unknown) => e)) as Error & { hints: string[] };
    expect(again).toBeInstanceOf(ValidationError);
    const said = [again.message, ...again.hints].join('\n');
    expect(said).toContain('add newRun');
    expect(said).toContain(`send ${file} again with journal: `);
    expect(said).not.toMatch(/--|mailroom batch/);
    expect(await sandbox.emails()).toHaveLength(2);
  });
  it('an onProgress that throws stops the run as an abort does: what was sent is journaled, and the call rejects with BatchError and its summary', async () => {
    const journal = join(dir, 'progress-throws.journal');
    const broke = new Error('progress bar broke');
    const err = (await mailroom.emails
      .batch(entries(200, 'Progress'), {
        journal,
        size: 10,
        concurrency: 4,
        defaults: { from: 'ops@example.com' },
        onProgress: (p) => {
          if (p.sent >= 40) throw broke;
        },
      })
      .catch((e: unknown) => e)) as BatchError;
    expect(err).toBeInstanceOf(BatchError);
    expect(err.message).toBe('emails.batch: onProgress threw: Error: progress bar broke');
    expect((err.cause as Error).cause).toMatchObject({ message: broke.message }); // a masked copy, as every cause
    expect(err.summary).toMatchObject({ interrupted: true, failed: 0, uncertain: 0 });
    // Every email that went out is in the summary (and the journal): none left in flight unrecorded.
    expect((await sandbox.emails()).length).toBe(err.summary.sent);
    expect(err.summary.sent).toBeGreaterThanOrEqual(40);
    expect(err.summary.sent).toBeLessThan(200);

    const resumed = await mailroom.emails.batch(entries(200, 'Progress'), { journal, size: 10, defaults: { from: 'ops@example.com' } });
    expect(resumed).toMatchObject({ skipped: err.summary.sent, sent: 200 - err.summary.sent, failed: 0 });
    expect(await sandbox.emails()).toHaveLength(200);
  });

  it('a journal another run holds is named journal, never --resume', async () => {
    const held = join(dir, 'held.journal');
    let second: Promise<unknown> | undefined;
    const first = await mailroom.emails.batch(entries(100, 'Held'), {
      journal: held,
      size: 10,
      concurrency: 1,
      defaults: { from: 'ops@example.com' },
      onProgress: () => {
        // While the first run holds its journal, a second run of it is refused before sending.
        second ??= mailroom.emails.batch(entries(100, 'Held'), { journal: held, defaults: { from: 'ops@example.com' } }).catch((e: unknown) => e);
      },
    });
    const busy = (await second) as Error;
    expect(busy).toBeInstanceOf(ValidationError);
    expect(busy.message).toMatch(new RegExp(`^journal ${held.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by another mailroom batch \\(pid ${process.pid}, started `));
    expect(first.sent).toBe(100);
    expect(await sandbox.emails()).toHaveLength(100);
  });

  it('a state directory it cannot create: the hint names env and journal, not a flag', async () => {
    const file = join(dir, 'state-is-a-file');
    writeFileSync(file, '');
    const client = new Mailroom({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl, env: { MAILROOM_STATE_DIR: join(file, 'state') } });
    try {
      const err = (await client.emails.batch(entries(1), { defaults: { from: 'ops@example.com' } }).catch((e: unknown) => e)) as ValidationError;
      expect(err).toBeInstanceOf(ValidationError);
      expect(err.message).toMatch(/^cannot create the journal directory .*state-is-a-file\/state\/batches: /);
      expect(err.hints).toEqual(['set MAILROOM_STATE_DIR in the env given to new Mailroom() (or process.env), or pass journal: <a file path>']);
      expect(await sandbox.emails()).toHaveLength(0);
    } finally {
      await client.close();
    }
  });

  it('a JSON file of two arrays: the hint names the format option as the library takes it', async () => {
    const file = join(dir, 'two-arrays.json');
    writeFileSync(file, '[{"to":"a@example.com"}]\n[{"to":"b@example.com"}]\n');
    const err = (await mailroom.emails.batch(file, { defaults: { from: 'ops@example.com', subject: 'Hi', html: '<p>Hi</p>' } }).catch((e: unknown) => e)) as BatchError;
    expect(err).toBeInstanceOf(BatchError);
    expect(err.message).toBe(`${file}: line 2, column 1: unexpected "[" after the end of the JSON (one object per line is NDJSON: give format: 'ndjson')`);
    expect(await sandbox.emails()).toHaveLength(0);
  });

  it('takes maxRetries and timeoutMs per call, as every method does, over the client\'s', async () => {
    // An API that answers every request 503 at once, or (after /slow) never answers.
    let requests = 0;
    const server = createServer((req, res) => {
      requests++;
      req.resume();
      if (req.url?.startsWith('/slow')) return;
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' }).end('{"statusCode":503,"error":"Service Unavailable","message":"down"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const env = { MAILROOM_STATE_DIR: mkdtempSync(join(tmpdir(), 'mailroom-lib-state-')) };
    const down = new Mailroom({ apiKey: 'sk_test_batch_retries', baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0, env });
    const slow = new Mailroom({ apiKey: 'sk_test_batch_retries', baseUrl: `http://127.0.0.1:${port}/slow`, maxRetries: 0, timeoutMs: 2_147_483_647, env });
    try {
      const summary = await down.emails.batch(entries(1), { defaults: { from: 'ops@example.com' }, maxRetries: 2 }).catch((e: unknown) => (e as BatchError).summary);
      expect(requests).toBe(3);
      expect(summary.sent).toBe(0);

      requests = 0;
      const started = Date.now();
      const timedOut = await slow.emails.batch(entries(1, 'Slow'), { defaults: { from: 'ops@example.com' }, timeoutMs: 100 }).catch((e: unknown) => (e as BatchError).summary);
      expect(requests).toBe(1);
      expect(timedOut.sent).toBe(0);
      expect(Date.now() - started).toBeLessThan(10_000);

      await expect(down.emails.batch(entries(1), { maxRetries: 11 })).rejects.toThrow('emails.batch: maxRetries must be');
      await expect(down.emails.batch(entries(1), { timeoutMs: 0 })).rejects.toThrow('emails.batch: timeoutMs must be');
      expect(requests).toBe(1);
    } finally {
      await down.close();
      await slow.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
