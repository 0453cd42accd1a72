import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { earlierRunsOf, firstRequestsOf } from '../../src/batch/earlier-runs.js';

const root = mkdtempSync(join(tmpdir(), 'mailroom-earlier-runs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const api = { baseUrl: 'http://127.0.0.1:4025', key: 'sha256:1111222233334444', profile: 'default' };
let n = 0;

/** A journal as a run writes it: its header, then a checkpoint and the accepted entries of each request. */
function journal(dir: string, o: { fingerprint?: string; api?: typeof api; sent?: number; age?: number; requests?: boolean } = {}): string {
  const runId = `run${++n}`;
  const lines = [JSON.stringify({ mailroom: 'batch-journal', v: 1, runId, createdAt: '2026-11-26T04:00:00.000Z', input: '/in.ndjson', fingerprint: o.fingerprint ?? 'sha256:aa', bytes: 10, size: 50, defaults: {}, api: o.api ?? api })];
  const sent = o.sent ?? 3;
  if (o.requests ?? true) lines.push(JSON.stringify({ upTo: Math.max(0, sent - 1), sha: 'x' }));
  if (sent > 0) lines.push(JSON.stringify({ ok: Array.from({ length: sent }, (_, i) => [i, `trs_${i}`, 'SENT']) }));
  const path = join(dir, `${runId}.journal`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  const t = Date.now() / 1000 - (o.age ?? 0);
  utimesSync(path, t, t);
  return path;
}

describe('earlier runs of an input (the re-run check)', () => {
  it('matches the same bytes, host and key only; the newest run that sent something is named, the others counted', async () => {
    const dir = join(root, 'a');
    mkdirSync(dir);
    journal(dir, { fingerprint: 'sha256:other' });
    journal(dir, { api: { ...api, baseUrl: 'http://127.0.0.1:9999' } });
    journal(dir, { api: { ...api, key: 'sha256:5555666677778888' } });
    journal(dir, { sent: 0, requests: false, age: 0 });
    const older = journal(dir, { sent: 2, age: 100 });
    const newest = journal(dir, { sent: 7, age: 10 });
    writeFileSync(join(dir, 'not-a-journal.journal'), 'hello\n');
    const found = await earlierRunsOf(dir, 'sha256:aa', api);
    expect(found?.newest).toMatchObject({ path: newest, sent: 7, refused: 0, sending: undefined });
    // The one that sent nothing is newer still, but is not a run of it that sent anything.
    expect(found?.older).toBe(1);
    expect(older).toBeDefined();
    expect(await earlierRunsOf(dir, 'sha256:bb', api)).toBeUndefined();
    expect(await earlierRunsOf(join(root, 'missing'), 'sha256:aa', api)).toBeUndefined();
  });

  it('follows a link to a journal kept elsewhere (named by its own path); a link whose journal is gone is skipped', async () => {
    const dir = join(root, 'b');
    mkdirSync(dir);
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(elsewhere);
    const kept = journal(elsewhere, { sent: 4 });
    symlinkSync(kept, join(dir, 'x.journal'));
    symlinkSync(join(elsewhere, 'deleted.journal'), join(dir, 'y.journal'));
    // Held by a live process (this one): a run is sending it now.
    writeFileSync(`${kept}.lock`, JSON.stringify({ pid: process.pid, host: hostname(), startedAt: new Date().toISOString() }));
    expect((await earlierRunsOf(dir, 'sha256:aa', api))?.newest).toMatchObject({ path: kept, sent: 4, sending: { pid: process.pid } });
    // A lock whose process is gone (or not a lock of ours): nobody is sending it.
    writeFileSync(`${kept}.lock`, '123\n');
    expect((await earlierRunsOf(dir, 'sha256:aa', api))?.newest).toMatchObject({ path: kept, sending: undefined });
  });

  it("a finished run that the API accepted nothing of sent nothing: not a run to refuse a repeat of", async () => {
    const dir = join(root, 'c');
    mkdirSync(dir);
    const path = journal(dir, { sent: 0 });
    writeFileSync(path, `${JSON.stringify({ fail: 0, line: 1, error: '400 Bad Request: Sender not verified', entry: {} })}\n${JSON.stringify({ finished: '2026-11-26T04:00:01.000Z', total: 1 })}\n`, { flag: 'a' });
    expect(await earlierRunsOf(dir, 'sha256:aa', api)).toBeUndefined();
  });
});

describe("earlier runs' first requests (the re-run check by entries)", () => {
  it('reads the checkpoint on the line after the header; leaves out other APIs, journals that never sent, and older journals without checkpoints', async () => {
    const dir = join(root, 'first');
    mkdirSync(dir);
    const sent = journal(dir, { sent: 5 });
    journal(dir, { api: { ...api, key: 'sha256:5555666677778888' } });
    journal(dir, { sent: 0, requests: false });
    const old = journal(dir, { sent: 2, requests: false });
    writeFileSync(join(dir, 'torn.journal'), `${JSON.stringify({ mailroom: 'batch-journal', v: 1, runId: 'torn', createdAt: '2026-11-26T04:00:00.000Z', input: '-', fingerprint: null, bytes: null, size: 50, api })}\n{"upTo":4,"sh`);
    writeFileSync(join(dir, 'garbage.journal'), 'hello\n{"upTo":1,"sha":"x"}\n');
    const found = firstRequestsOf(dir, api);
    expect(found.map((f) => ({ path: f.path, upTo: f.upTo, sha: f.sha }))).toEqual([{ path: sent, upTo: 4, sha: 'x' }]);
    expect(old).toBeDefined();
    expect(firstRequestsOf(join(root, 'missing'), api)).toEqual([]);
    // A link to a journal kept elsewhere is listed as the link (resolved only when its entries match).
    symlinkSync(sent, join(dir, 'link.journal'));
    expect(firstRequestsOf(dir, api).map((f) => f.path).sort()).toEqual([join(dir, 'link.journal'), sent].sort());
  });
});
