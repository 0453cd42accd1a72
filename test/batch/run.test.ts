import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BatchEnv, BatchRunOptions } from '../../src/batch/run-options.js';
import { runBatch } from '../../src/batch/run.js';
import { fakeApi } from './fake-api.js';
import { exitCodeOf } from '../../src/exit-codes.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mailroom-batch-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function ctx(signal = new AbortController().signal): BatchEnv & { notes: string[] } {
  const notes: string[] = [];
  return { cwd: dir, signal, warn: (m) => notes.push(m), notes };
}

/** The CLI's streams as the engine sees them: `-` reads `text`. */
function stdio(text: string): NonNullable<BatchRunOptions['stdio']> {
  const input = new PassThrough();
  input.end(text);
  return { in: input, out: new PassThrough(), isStdinTTY: false };
}

const readLines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

function writeInput(count: number, bad: number[] = []): string {
  const lines = Array.from({ length: count }, (_, i) => (bad.includes(i) ? JSON.stringify({ to: `broken-${i}` }) : JSON.stringify({ to: `u${i}@example.com`, html: `<p>${i}</p>` })));
  const path = join(dir, 'in.ndjson');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

const base = (over: Partial<BatchRunOptions>): BatchRunOptions => ({
  input: 'in.ndjson',
  defaults: { from: 'ops@example.com', subject: 'Hi' },
  size: 50,
  concurrency: 4,
  dryRun: false,
  journalDir: join(dir, 'journals'),
  report: 'report.ndjson',
  failed: 'failed.ndjson',
  ...over,
});

describe('runBatch', () => {
  it('sends the valid entries, reports every entry once, writes failed entries that can be fed back', async () => {
    writeInput(300, [5, 77]);
    const api = fakeApi({ reject: (e) => (e.to === 'u9@example.com' ? 'Sender not verified' : undefined) });
    const s = await runBatch(ctx(), base({ send: api.send }));
    expect(s).toMatchObject({ total: 300, sent: 297, failed: 3, invalid: 2, skipped: 0, unsent: 0 });
    const report = readLines(join(dir, 'report.ndjson'));
    expect(report.map((r) => r.index).sort((a, b) => (a as number) - (b as number))).toEqual(Array.from({ length: 300 }, (_, i) => i));
    expect(report.find((r) => r.index === 5)).toMatchObject({ line: 6, error: expect.stringMatching(/to must be an email address/) });
    expect(report.find((r) => r.index === 9)).toMatchObject({ error: '400 Bad Request: Sender not verified', statusCode: 400 });
    expect(report.find((r) => r.index === 0)).toMatchObject({ id: expect.stringMatching(/^trs_/), status: 'SENT' });
    // Each failed entry as it was read (the invalid ones in input order, then the refused one), so
    // that the file, fixed, is sent again with the same flags; why each failed is in the report.
    const input = readFileSync(join(dir, 'in.ndjson'), 'utf8').split('\n');
    expect(readFileSync(join(dir, 'failed.ndjson'), 'utf8')).toBe(`${input[5]}\n${input[77]}\n${input[9]}\n`);
    const journal = readLines(s.journal!);
    expect(journal[0]).toMatchObject({ mailroom: 'batch-journal', runId: s.runId, fingerprint: expect.stringMatching(/^sha256:/) });
    expect(new Set(api.delivered.map((e) => e.idempotencyKey)).size).toBe(297);
    expect(api.delivered[0]!.idempotencyKey).toBe(`mr-${s.runId}-0`);
  });

  it('lists each first error as { index, line, error } only, an invalid entry included', async () => {
    writeInput(3, [1]);
    const s = await runBatch(ctx(), base({ dryRun: true }));
    expect(s.errors).toEqual([{ index: 1, line: 2, error: expect.stringMatching(/to must be an email address/) }]);
  });

  it('resumes an interrupted run: skips what the journal holds, reuses its keys, completes the report', async () => {
    writeInput(1000);
    const controller = new AbortController();
    const api = fakeApi({ fault: (call) => (call === 6 ? (controller.abort(), 'ok') : 'ok') });
    const first = await runBatch(ctx(controller.signal), base({ send: api.send, resume: 'run.journal' }));
    expect(first.interrupted).toBe(true);
    expect(first.sent).toBeGreaterThan(0);
    expect(first.sent).toBeLessThan(1000);
    // A write torn by kill -9 at the end of the journal is ignored.
    appendFileSync(join(dir, 'run.journal'), '{"ok":[[999,"trs_x"');
    const second = await runBatch(ctx(), base({ send: api.send, resume: 'run.journal' }));
    expect(second).toMatchObject({ resumed: true, runId: first.runId, skipped: first.sent, sent: 1000 - first.sent, failed: 0, unsent: 0 });
    expect(api.delivered).toHaveLength(1000);
    expect(new Set(api.delivered.map((e) => e.idempotencyKey)).size).toBe(1000);
    const report = readLines(join(dir, 'report.ndjson'));
    expect(report).toHaveLength(1000);
    expect(new Set(report.map((r) => r.index)).size).toBe(1000);
    const third = await runBatch(ctx(), base({ send: api.send, resume: 'run.journal' }));
    expect(third).toMatchObject({ sent: 0, skipped: 1000 });
  });

  it('an entry given up on after retries is failed, not journaled, not in --failed (a new run would send it twice), and a resume sends it once', async () => {
    writeInput(100);
    let down = true;
    const api = fakeApi({ fault: (_c, emails) => (down && emails.some((e) => e.to === 'u60@example.com') ? 'lost' : 'ok') });
    const first = await runBatch(ctx(), base({ send: api.send, resume: 'run.journal', retry: { maxAttempts: 2, backoffMs: 1 } }));
    expect(first).toMatchObject({ sent: 50, failed: 50, uncertain: 50 });
    // The lost answers were processed by the API: it already has those fifty.
    expect(api.delivered).toHaveLength(100);
    expect(readFileSync(join(dir, 'failed.ndjson'), 'utf8')).toBe('');
    expect(readLines(join(dir, 'report.ndjson')).find((r) => r.index === 60)).toMatchObject({ error: expect.stringMatching(/gave up after 2 attempts/) });
    down = false;
    const second = await runBatch(ctx(), base({ send: api.send, resume: 'run.journal' }));
    expect(second).toMatchObject({ skipped: 50, sent: 50, failed: 0 });
    expect(api.delivered).toHaveLength(100);
  });

  it('resumes piped input checking each skipped entry against the hash the journal kept', async () => {
    const lines = (n: number, tweak = -1) =>
      `${Array.from({ length: n }, (_, i) => JSON.stringify({ to: `u${i}@example.com`, html: i === tweak ? '<p>changed</p>' : `<p>${i}</p>` })).join('\n')}\n`;
    const controller = new AbortController();
    const api = fakeApi({ fault: (call) => (call === 4 ? (controller.abort(), 'ok') : 'ok') });
    const first = await runBatch(ctx(controller.signal), base({ input: '-', stdio: stdio(lines(500)), send: api.send, resume: 'stdin.journal' }));
    expect(first.interrupted).toBe(true);
    const journal = readLines(join(dir, 'stdin.journal'));
    expect(journal[0]).toMatchObject({ input: '-', fingerprint: null });
    expect((journal.find((r) => 'ok' in r)!.ok as unknown[][])[0]).toHaveLength(4);
    expect(journal[1]).toMatchObject({ upTo: 49, sha: expect.stringMatching(/^[0-9a-f]{32}$/) });

    const changed = await runBatch(ctx(), base({ input: '-', stdio: stdio(lines(500, 3)), send: api.send, resume: 'stdin.journal' }));
    expect(exitCodeOf(changed.fatal)).toBe(2);
    expect(changed.fatal?.message).toMatch(/the input differs .*entry 3, line 4, is not the entry the journal recorded/);
    expect(changed.sent).toBe(0);

    const same = await runBatch(ctx(), base({ input: '-', stdio: stdio(lines(500)), send: api.send, resume: 'stdin.journal' }));
    expect(same).toMatchObject({ total: 500, skipped: first.sent, sent: 500 - first.sent, failed: 0 });
    expect(api.delivered).toHaveLength(500);
  });

  it('resumes a file that grew at its end: only the entries added are sent; a journal without checkpoints (an older mailroom) still refuses it', async () => {
    writeInput(100);
    const api = fakeApi();
    await runBatch(ctx(), base({ send: api.send, resume: 'grown.journal', size: 30 }));
    writeInput(130);
    const c = ctx();
    const grown = await runBatch(c, base({ send: api.send, resume: 'grown.journal', size: 30 }));
    expect(grown).toMatchObject({ total: 130, skipped: 100, sent: 30, failed: 0, resumed: true });
    expect(c.notes).toContain(`${join(dir, 'in.ndjson')} grew since the journal's run read it: the entries added at its end are sent with the rest`);
    expect(api.delivered).toHaveLength(130);
    expect(new Set(api.delivered.map((e) => e.to)).size).toBe(130);

    // The same journal without its checkpoints: nothing to check the entries it sent against.
    const old = join(dir, 'old.journal');
    writeFileSync(old, `${readLines(join(dir, 'grown.journal')).filter((r) => !('upTo' in r)).map((r) => JSON.stringify(r)).join('\n')}\n`);
    writeInput(140);
    await expect(runBatch(ctx(), base({ send: api.send, resume: 'old.journal', size: 30 }))).rejects.toMatchObject({ kind: 'validation', message: expect.stringMatching(/not the file this journal was made from/) });
    expect(api.delivered).toHaveLength(130);
  });

  it('refuses to resume with a different input or different defaults, before sending anything', async () => {
    writeInput(100);
    const api = fakeApi();
    await runBatch(ctx(), base({ send: api.send, resume: 'run.journal' }));
    writeInput(100, [5]);
    await expect(runBatch(ctx(), base({ send: api.send, resume: 'run.journal' }))).rejects.toMatchObject({ kind: 'validation', message: expect.stringMatching(/not the file this journal was made from/) });
    // Entries added at the end, and one changed before them: another file, not the one grown.
    writeInput(101, [5]);
    await expect(runBatch(ctx(), base({ send: api.send, resume: 'run.journal' }))).rejects.toMatchObject({ kind: 'validation', message: expect.stringMatching(/not the file this journal was made from/) });
    writeInput(100);
    await expect(runBatch(ctx(), base({ send: api.send, resume: 'run.journal', defaults: { from: 'x@example.com', subject: 'Hi' } }))).rejects.toMatchObject({ kind: 'validation' });
    expect(api.delivered).toHaveLength(100);
  });

  it('dry run validates everything and sends nothing, writes no journal', async () => {
    writeInput(200, [3]);
    const s = await runBatch(ctx(), base({ dryRun: true, report: undefined }));
    expect(s).toMatchObject({ total: 200, invalid: 1, sent: 0, journal: null, errors: [{ index: 3, line: 4 }] });
  });

  it('stops at a broken JSON structure with what was sent journaled', async () => {
    const body = Array.from({ length: 120 }, (_, i) => JSON.stringify({ to: `u${i}@example.com`, html: 'x' })).join(',\n');
    writeFileSync(join(dir, 'in.json'), `[\n${body}\n`);
    const api = fakeApi();
    const s = await runBatch(ctx(), base({ input: 'in.json', send: api.send }));
    expect(exitCodeOf(s.fatal)).toBe(2);
    expect(s.fatal?.message).toMatch(/not closed/);
    expect(s.sent).toBe(api.delivered.length);
  });
});
