import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { IO } from '../../src/context.js';
import { printKeyValues, printTable, type Column } from '../../src/output/index.js';
import { relativeTime } from '../../src/output/relative-time.js';

function terminal(columns: number | undefined): IO & { text(): string } {
  const out = new PassThrough();
  let buf = '';
  out.on('data', (d: Buffer) => (buf += d.toString()));
  return { out, err: new PassThrough(), in: new PassThrough(), isStdoutTTY: true, isStderrTTY: true, isStdinTTY: false, color: false, outColumns: columns, errColumns: columns, text: () => buf };
}

interface Hook {
  id: string;
  url: string;
  events: string[];
  status?: string;
  createdAt: string;
}

const HOUR = 3_600_000;
const hooks: Hook[] = [
  {
    id: 'wh_0123456789abcdef',
    url: 'https://hooks.example.com/a/long/path/to/the/webhook/receiver',
    events: ['CONTACT_CREATED', 'CONTACT_UPDATED', 'CONTACT_UNSUBSCRIBED', 'CONTACT_RESUBSCRIBED', 'CONTACT_DELETED'],
    createdAt: new Date(Date.now() - 2 * HOUR - 60_000).toISOString(),
  },
  { id: 'wh_1', url: 'https://h.example.com/x', events: ['CONTACT_CREATED'], createdAt: new Date(Date.now() - 3 * 24 * HOUR).toISOString() },
];
const COLUMNS: Column<Hook>[] = [
  { header: 'ID', value: (w) => w.id },
  { header: 'URL', value: (w) => w.url, kind: 'text' },
  { header: 'EVENTS', value: (w) => w.events.join(', '), kind: 'text' },
  { header: 'STATUS', value: (w) => w.status },
  { header: 'CREATED', value: (w) => w.createdAt, kind: 'date' },
];

describe('tables on a terminal', () => {
  it('at 80 columns: nothing wider, nothing wrapped; ids and dates whole, free text shortened with …', async () => {
    const io = terminal(80);
    await printTable({ io }, hooks, COLUMNS);
    const lines = io.text().trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/^ID +URL +EVENTS +CREATED$/);
    expect(lines[1]).toMatch(/^wh_0123456789abcdef +https:\/\/hooks\.\S*… +CONTACT_CREATED, \S*… +2 hours ago$/);
    expect(lines[2]).toMatch(/^wh_1 +https:\/\/h\.\S+ +CONTACT_CREATED +3 days ago$/);
  });

  it('at 200 columns everything fits whole', async () => {
    const io = terminal(200);
    await printTable({ io }, hooks, COLUMNS);
    expect(io.text()).toContain(hooks[0]?.url);
    expect(io.text()).toContain(hooks[0]?.events.join(', '));
    expect(io.text()).not.toContain('…');
  });

  it('a column with no value in any row is left out (no STATUS of dashes)', async () => {
    const io = terminal(200);
    await printTable({ io }, hooks, COLUMNS);
    expect(io.text()).not.toContain('STATUS');
    const withStatus = terminal(200);
    await printTable({ io: withStatus }, [{ ...hooks[1], status: 'ACTIVE' } as Hook, hooks[0] as Hook], COLUMNS);
    expect(withStatus.text()).toMatch(/STATUS/);
    expect(withStatus.text()).toMatch(/ACTIVE/);
  });

  it('without a known width (not a terminal) nothing is shortened', async () => {
    const io = terminal(undefined);
    await printTable({ io }, hooks, COLUMNS);
    expect(io.text()).toContain(hooks[0]?.url);
  });

  it('a key/value view shows a date relative, with the exact time beside it', async () => {
    const io = terminal(80);
    const created = hooks[0]?.createdAt as string;
    await printKeyValues({ io }, [['id', 'wh_1'], ['created', created, 'date']]);
    expect(io.text()).toBe(`id       wh_1\ncreated  2 hours ago (${created})\n`);
  });
});

describe('relativeTime', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  it.each([
    ['2026-11-23T11:59:50Z', 'just now'],
    ['2026-11-23T11:59:00Z', '1 minute ago'],
    ['2026-11-23T11:15:00Z', '45 minutes ago'],
    ['2026-11-23T10:00:00Z', '2 hours ago'],
    ['2026-11-22T12:00:00Z', '1 day ago'],
    ['2026-10-20T12:00:00Z', '1 month ago'],
    ['2026-10-01T12:00:00Z', '2 months ago'],
    ['2024-11-23T12:00:00Z', '2 years ago'],
    ['2026-11-23T14:00:00Z', 'in 2 hours'],
    // `send --send-at +2h` shown a second or two later: still the 2 hours the user asked for.
    ['2026-11-23T13:59:58.500Z', 'in 2 hours'],
    ['2026-11-23T10:31:00Z', '1 hour ago'],
    ['2026-11-23T10:29:00Z', '2 hours ago'],
    ['2026-11-23T11:00:20Z', '1 hour ago'],
    ['not a date', 'not a date'],
  ])('%s → %s', (iso, shown) => {
    expect(relativeTime(iso, now)).toBe(shown);
  });
});
