import { describe, expect, it } from 'vitest';
import { quickParseEmail } from '../../src/schema/email-quick.js';
import { parseEmailRequest, zonedTimestamp } from '../../src/schema/index.js';

// The quick check must never vouch for what zod refuses, must return what zod returns (same keys,
// same order), and must vouch for everything zod accepts in this corpus (its only deferrals, shown
// at the end, are left out of it), or the batch path would load zod after all.
function expectSameAnswer(input: Record<string, unknown>): void {
  const quick = quickParseEmail(input);
  const full = parseEmailRequest(input);
  const label = JSON.stringify(input, (_k, v: unknown) => (v === undefined ? '<undefined>' : v));
  if (!full.ok) {
    expect(quick, label).toBeUndefined();
    return;
  }
  expect(quick, label).toStrictEqual(full.email);
  expect(Object.keys(quick!), label).toEqual(Object.keys(full.email));
  expect(JSON.stringify(quick), label).toBe(JSON.stringify(full.email));
}

/** Deterministic PRNG (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STRINGS = [
  '', ' ', 'x', 'Hello', '<p>Hi</p>', 'ü', '😀', 'a@b.co', 'ops@example.com', 'Acme <ops@example.com>', 'Acme<ops@example.com>', '  Acme   < ops@example.com >  ',
  '<ops@example.com>', 'Acme <ops@example.com', 'Acme ops@example.com', 'not-an-address', 'a@b', 'a@b.', 'a@.co', '@b.co', 'a@b.co ', ' a@b.co', 'a b@c.de',
  '"q"@b.co', 'a@b@c.de', 'a,b@c.de', 'ü@exämple.com', `${'a'.repeat(310)}@example.com`, `${'a'.repeat(320)}@example.com`, 'k'.repeat(256), 'k'.repeat(257),
  '2026-06-02T00:00:00Z', '2026-06-02T00:00:00.123+02:00', '2026-06-02T00:00:00-23:59', '2026-06-02T00:00:00+24:00', '2026-06-02T00:00Z', '2026-06-02 00:00:00Z',
  '2026-06-02T00:00:00+0200', '2026-06-02T00:00:00', '2026-02-29T00:00:00Z', '2024-02-29T10:00:00Z', '1900-02-29T00:00:00Z', '2000-02-29T00:00:00Z',
  '2026-06-31T00:00:00Z', '2026-13-01T00:00:00Z', '2026-06-02T24:00:00Z', '2026-06-02T00:60:00Z', '2026-06-02T00:00:60Z', '2026-06-02T00:00:00.Z',
  '2026-06-02t00:00:00z', '2026-06-02T00:00:00.123456789Z', '+2026-06-02T00:00:00Z', '2026-06-02T00:00:00Z\n',
];
const SCALAR_RECORDS: unknown[] = [
  {}, { name: 'Ada' }, { plan: 'pro', seats: 3, trial: false, coupon: null }, { '': 'empty key', '1': 'numeric key', b: 2 }, { n: -1.5e300 },
  { n: Infinity }, { nested: {} }, { list: [] }, { u: undefined }, JSON.parse('{"constructor": "x"}'),
];
const SETTINGS: unknown[] = [
  {}, { trackOpens: true }, { trackClicks: false, trackOpens: true }, { trackOpens: true, trackClicks: false }, { trackOpens: 'yes' }, { trackOpens: 1 },
  { trackOpens: null }, { trackClicks: undefined }, { trackOpens: true, other: true }, JSON.parse('{"__proto__": {"trackOpens": true}}'),
];
const OTHERS: unknown[] = [undefined, null, true, false, 0, 1, -1.5, Infinity, [], ['a'], { a: 1 }, ...SCALAR_RECORDS.slice(1, 4), ...SETTINGS.slice(1, 3)];
const VALUES = [...STRINGS, ...OTHERS];

const RAW_FIELDS = ['from', 'fromName', 'to', 'subject', 'html', 'text', 'previewText', 'replyTo', 'contactProperties', 'settings', 'groupBy', 'sendAt', 'idempotencyKey'];
const TEMPLATED_FIELDS = ['template', 'to', 'variables', 'settings', 'groupBy', 'sendAt', 'idempotencyKey'];
const RAW_BASE = { from: 'Acme <ops@example.com>', to: 'ada@example.com', subject: 'Hi', html: '<p>Hi</p>' };
const TEMPLATED_BASE = { template: 'welcome', to: 'ada@example.com' };
const poolFor = (field: string): unknown[] =>
  field === 'contactProperties' || field === 'variables' ? [...SCALAR_RECORDS, ...OTHERS] : field === 'settings' ? [...SETTINGS, ...OTHERS] : VALUES;

describe('quick email check against the zod schemas', () => {
  it('gives zod’s answer for every value of every field, one field changed at a time', () => {
    let n = 0;
    for (const [base, fields] of [
      [RAW_BASE, RAW_FIELDS],
      [TEMPLATED_BASE, TEMPLATED_FIELDS],
    ] as const) {
      for (const field of [...fields, 'template', 'colour', '_index', '__proto__']) {
        for (const value of poolFor(field)) {
          expectSameAnswer({ ...base, [field]: value });
          const without: Record<string, unknown> = { ...base };
          delete without[field];
          expectSameAnswer(without);
          n += 1;
        }
      }
    }
    expect(n).toBeGreaterThan(1000);
  });

  it('gives zod’s answer for random entries, mostly valid, some fields wrong or unknown', () => {
    const rand = random(42);
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const validFor: Record<string, unknown[]> = {
      from: ['ops@example.com', 'Acme <ops@example.com>'],
      fromName: ['Acme', ''],
      to: ['ada@example.com', 'b@b.co'],
      subject: ['Hi', 'Order 1 shipped'],
      html: ['<p>x</p>'],
      text: ['x', ''],
      previewText: ['p'],
      replyTo: ['r@example.com'],
      contactProperties: SCALAR_RECORDS.slice(0, 5),
      variables: SCALAR_RECORDS.slice(0, 5),
      settings: SETTINGS.slice(0, 4),
      groupBy: ['g1'],
      sendAt: ['2026-06-02T00:00:00Z', '2026-06-02T09:30:00.5+02:00'],
      idempotencyKey: ['signup-42', 'k'.repeat(256)],
      template: ['welcome'],
    };
    let vouched = 0;
    for (let i = 0; i < 4000; i++) {
      const templated = rand() < 0.4;
      const fields = templated ? TEMPLATED_FIELDS : RAW_FIELDS;
      const entry: Record<string, unknown> = {};
      // Random order: zod's output follows the schema's, whatever the input's.
      for (const field of [...fields].sort(() => rand() - 0.5)) {
        const r = rand();
        if (r < 0.3) continue;
        entry[field] = r < 0.93 ? pick(validFor[field]!) : pick(poolFor(field));
      }
      if (rand() < 0.03) entry[pick(['colour', 'template', 'html', 'from'])] = 'x';
      expectSameAnswer(entry);
      if (quickParseEmail(entry)) vouched += 1;
    }
    expect(vouched).toBeGreaterThan(500);
  });

  it('reads sendAt exactly as the wire schema (zonedTimestamp) does', () => {
    const rand = random(7);
    const two = (max: number) => String(Math.floor(rand() * max)).padStart(2, '0');
    for (let i = 0; i < 20000; i++) {
      const year = String(Math.floor(rand() * 10000)).padStart(4, '0');
      const zone = pick(['Z', 'z', '', `+${two(26)}:${two(62)}`, `-${two(26)}:${two(62)}`, `+${two(26)}${two(62)}`, `-${two(26)}`]);
      const fraction = pick(['', '.5', '.123456789', '.', ',5']);
      const sendAt = `${year}-${two(14)}-${two(33)}${pick(['T', 't', ' '])}${two(26)}:${two(62)}${rand() < 0.9 ? `:${two(62)}` : ''}${fraction}${zone}`;
      expect(quickParseEmail({ ...TEMPLATED_BASE, sendAt }) !== undefined, sendAt).toBe(zonedTimestamp.safeParse(sendAt).success);
    }
    function pick<T>(xs: readonly T[]): T {
      return xs[Math.floor(rand() * xs.length)]!;
    }
  });

  it('leaves to zod what it does not vouch for, valid or not', () => {
    // zod counts code points past 256 units: 200 emoji are 400 units but 200 characters.
    const longKey = { ...TEMPLATED_BASE, idempotencyKey: '😀'.repeat(200) };
    expect(parseEmailRequest(longKey).ok).toBe(true);
    expect(quickParseEmail(longKey)).toBeUndefined();
    const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, TEMPLATED_BASE);
    expect(quickParseEmail(nullProto)).toBeUndefined();
    expect(quickParseEmail({ ...TEMPLATED_BASE, variables: Object.assign(Object.create(null) as object, { a: 1 }) })).toBeUndefined();
    // zod drops a record's own "__proto__" key (JSON.parse makes one); the quick check does not copy records, so it defers.
    const protoKey = { ...TEMPLATED_BASE, variables: JSON.parse('{"__proto__": "x", "a": 1}') as unknown };
    expect(parseEmailRequest(protoKey)).toMatchObject({ ok: true, email: { variables: { a: 1 } } });
    expect(quickParseEmail(protoKey)).toBeUndefined();
  });
});
