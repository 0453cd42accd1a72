import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeBody, entryBody, journalHeaders, JournalWriter, readJournal, type JournalEntry } from '../../src/webhook/delivery-journal.js';
import { formatLines, linesFor, parseLines, parseSince, replayRequest, selectEntries } from '../../src/webhook/replay.js';
import { sign } from '../../src/webhook/signature.js';

const entry = (over: Partial<JournalEntry>): JournalEntry => ({
  receivedAt: '2026-11-22T08:00:00.000Z',
  method: 'POST',
  path: '/',
  headers: { 'content-type': 'application/json' },
  body: '{}',
  status: 200,
  verified: true,
  event: 'CONTACT_CREATED',
  ...over,
});

describe('journal', () => {
  it('round-trips bodies exactly, base64 when they are not UTF-8', () => {
    const text = Buffer.from('{"name":"Zoë"}');
    expect(encodeBody(text)).toEqual({ body: '{"name":"Zoë"}' });
    const binary = Buffer.from([0x7b, 0xff, 0x7d]);
    const enc = encodeBody(binary);
    expect(enc.bodyEncoding).toBe('base64');
    expect(entryBody(entry(enc))!.equals(binary)).toBe(true);
  });

  it('redacts credentials a proxy may add but keeps the signature', () => {
    expect(journalHeaders({ authorization: 'Bearer sk_live_x', cookie: 'c', 'x-smashsend-signature': 'abc', skipped: undefined })).toEqual({
      authorization: '[redacted]',
      cookie: '[redacted]',
      'x-smashsend-signature': 'abc',
    });
  });

  it('appends in order and reads back; names the bad line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-journal-'));
    const path = join(dir, 'j.ndjson');
    const writer = await JournalWriter.open(path);
    const first = writer.append(entry({ event: 'CONTACT_CREATED' }));
    const second = writer.append(entry({ event: 'CONTACT_DELETED' }));
    expect(await Promise.all([first, second])).toEqual([{ line: 1 }, { line: 2 }]);
    expect((await readJournal(path)).map((e) => [e.line, e.event])).toEqual([
      [1, 'CONTACT_CREATED'],
      [2, 'CONTACT_DELETED'],
    ]);
    await writer.close();
    await writeFile(path, `${await readFile(path, 'utf8')}not json\n`);
    await expect(readJournal(path)).rejects.toThrow('line 3');
  });

  it('a journal opened again numbers on from its last line; one cut short gets its next entry on a line of its own', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-journal-'));
    const path = join(dir, 'j.ndjson');
    await writeFile(path, `${JSON.stringify(entry({ event: 'CONTACT_CREATED' }))}\n\n{"cut`);
    const writer = await JournalWriter.open(path);
    expect(await writer.append(entry({ event: 'CONTACT_DELETED' }))).toEqual({ line: 4 });
    await writer.close();
    expect((await readFile(path, 'utf8')).split('\n')[3]).toContain('CONTACT_DELETED');
  });

  it('--lines: parses lists and ranges; the printed list spans only entries replay skips anyway', () => {
    expect(parseLines('3, 5-7,9')).toEqual([
      [3, 3],
      [5, 7],
      [9, 9],
    ]);
    for (const bad of ['', '0', '3-1', 'a', '1-', '1,,2']) expect(() => parseLines(bad)).toThrow(/--lines/);
    const among = [1, 2, 4, 7, 8, 10].map((line) => ({ line }));
    expect(formatLines(linesFor(among, new Set([2, 4, 8, 10])))).toBe('2-4,8-10');
    expect(formatLines(linesFor(among, new Set([1])))).toBe('1');
  });
});

describe('replay selection', () => {
  it('keeps accepted deliveries in order, filtered by event and time; skips refusals and connection tests', () => {
    const entries = [
      entry({ receivedAt: '2026-11-22T07:00:00.000Z', event: 'CONTACT_CREATED' }),
      entry({ status: 401, verified: false, event: undefined }),
      entry({ receivedAt: '2026-11-22T08:30:00.000Z', event: 'TESTING_CONNECTION' }),
      entry({ receivedAt: '2026-11-22T08:31:00.000Z', event: 'CONTACT_DELETED' }),
      entry({ receivedAt: '2026-11-22T08:32:00.000Z', event: 'CONTACT_CREATED' }),
    ];
    expect(selectEntries(entries, {}).map((e) => e.receivedAt)).toEqual(['2026-11-22T07:00:00.000Z', '2026-11-22T08:31:00.000Z', '2026-11-22T08:32:00.000Z']);
    expect(selectEntries(entries, { events: new Set(['CONTACT_CREATED']) })).toHaveLength(2);
    expect(selectEntries(entries, { since: new Date('2026-11-22T08:00:00Z') }).map((e) => e.event)).toEqual(['CONTACT_DELETED', 'CONTACT_CREATED']);
  });

  it('parses --since as ISO or a span back from now', () => {
    const now = new Date('2026-11-22T10:00:00.000Z');
    expect(parseSince('1h', now).toISOString()).toBe('2026-11-22T09:00:00.000Z');
    expect(parseSince('-30m', now).toISOString()).toBe('2026-11-22T09:30:00.000Z');
    expect(parseSince('2026-11-21T00:00:00Z', now).toISOString()).toBe('2026-11-21T00:00:00.000Z');
    expect(() => parseSince('yesterday', now)).toThrow(/--since/);
  });

  it('re-signs the exact body under the original signature header name, dropping hop-by-hop headers', () => {
    const body = '{"event":"CONTACT_CREATED"}';
    const { body: out, headers } = replayRequest(entry({ body, headers: { host: 'x', 'content-length': '3', 'x-acme-signature': 'old', 'user-agent': 'ua' } }), 'wht_new');
    expect(out.toString()).toBe(body);
    expect(headers).toEqual({ 'x-acme-signature': sign('wht_new', body), 'user-agent': 'ua' });
  });

  it('does not send the journal\'s "[redacted]" placeholders on as credentials', () => {
    const body = '{"event":"CONTACT_CREATED"}';
    const journalled = journalHeaders({ authorization: 'Bearer secret', cookie: 'sid=1', 'x-smashsend-signature': 'old', 'user-agent': 'ua' });
    const { headers } = replayRequest(entry({ body, headers: journalled }), 'wht_new');
    expect(headers).toEqual({ 'x-smashsend-signature': sign('wht_new', body), 'user-agent': 'ua' });
  });
});

describe('journal writer', () => {
  it('refuses a path it cannot write before anything is received', async () => {
    await expect(JournalWriter.open('/nonexistent-dir-for-mailroom/j.ndjson')).rejects.toThrow('--journal: cannot write /nonexistent-dir-for-mailroom/j.ndjson: no such directory');
  });
});
