import { describe, expect, it } from 'vitest';
import { prepareEntry } from '../../src/input/entries.js';

const now = new Date('2026-06-01T00:00:00Z');
const key = (i: number) => `mr-run-${i}`;
const clock = () => now;

describe('batch entry preparation', () => {
  it('applies defaults only where the entry lacks them, by kind', async () => {
    const d = { from: 'ops@example.com', subject: 'Hello', html: '<p>x</p>', groupBy: 'g1', sendAt: '2026-06-02T00:00:00.000Z' };
    const raw = await prepareEntry({ line: 1, value: { to: 'a@example.com', subject: 'Own' } }, 0, d, key, clock);
    expect(raw).toEqual({ ok: true, index: 0, line: 1, email: { from: 'ops@example.com', to: 'a@example.com', subject: 'Own', html: '<p>x</p>', groupBy: 'g1', sendAt: '2026-06-02T00:00:00.000Z', idempotencyKey: 'mr-run-0' } });
    const templated = await prepareEntry({ line: 2, value: { to: 'b@example.com', template: 'welcome', idempotencyKey: 'mine' } }, 1, d, key, clock);
    expect(templated).toEqual({ ok: true, index: 1, line: 2, email: { to: 'b@example.com', template: 'welcome', variables: {}, groupBy: 'g1', sendAt: '2026-06-02T00:00:00.000Z', idempotencyKey: 'mine' } });
    const byTemplate = await prepareEntry({ line: 3, value: { to: 'c@example.com', variables: { name: 'Ada' } } }, 2, { template: 'welcome', from: 'ops@example.com' }, key, clock);
    expect(byTemplate.ok && byTemplate.email).toEqual({ to: 'c@example.com', template: 'welcome', variables: { name: 'Ada' }, idempotencyKey: 'mr-run-2' });
  });

  it('writes a sendAt that --send-at would accept (no seconds, a +hhmm zone) in the wire form; leaves others to the schema', async () => {
    const at = async (sendAt: string) => prepareEntry({ line: 1, value: { template: 't', to: 'a@example.com', sendAt } }, 0, {}, key, clock);
    expect(await at('2026-06-02T09:00Z')).toMatchObject({ ok: true, email: { sendAt: '2026-06-02T09:00:00.000Z' } });
    expect(await at('2026-06-02T09:00:30+0200')).toMatchObject({ ok: true, email: { sendAt: '2026-06-02T07:00:30.000Z' } });
    expect(await at('2026-06-02t09:00z')).toMatchObject({ ok: true, email: { sendAt: '2026-06-02T09:00:00.000Z' } });
    expect(await at('2026-06-02T09:00:00+02:00')).toMatchObject({ ok: true, email: { sendAt: '2026-06-02T09:00:00+02:00' } });
    expect(await at('2026-06-02 09:00')).toMatchObject({ ok: false, error: expect.stringMatching(/^sendAt (is not an ISO 8601 |needs a time zone)/) });
    expect(await at('2026-06-02T09:00')).toMatchObject({ ok: false, error: expect.stringMatching(/^sendAt (is not an ISO 8601 |needs a time zone)/) });
  });

  it('drops the annotation fields a --failed file carries, so it can be fed back', async () => {
    const p = await prepareEntry({ line: 1, value: { from: 'o@example.com', to: 'a@example.com', subject: 's', html: 'h', _index: 4, _line: 5, _error: 'x' } }, 0, {}, key, clock);
    expect(p.ok).toBe(true);
  });

  it('reports why an entry is invalid, with the entry as it would have been sent', async () => {
    const p = await prepareEntry({ line: 7, value: { to: 'not-an-address', subject: 's' } }, 6, { from: 'ops@example.com' }, key, clock);
    expect(p).toMatchObject({ ok: false, index: 6, line: 7, entry: { from: 'ops@example.com', to: 'not-an-address', subject: 's' } });
    expect(!p.ok && p.error).toMatch(/to must be an email address/);
    expect(!p.ok && p.error).toMatch(/html is required/);
    expect(await prepareEntry({ line: 2, value: [1] }, 1, {}, key, clock)).toMatchObject({ ok: false, error: 'an email must be a JSON object, got an array' });
    expect(await prepareEntry({ line: 3, error: 'not valid JSON (x)' }, 2, {}, key, clock)).toMatchObject({ ok: false, error: 'not valid JSON (x)' });
    const past = await prepareEntry({ line: 4, value: { template: 't', to: 'a@example.com', sendAt: '2026-05-01T00:00:00Z' } }, 3, {}, key, clock);
    expect(!past.ok && past.error).toMatch(/in the past/);
  });

  it('answers a valid entry synchronously: the zod schemas load only for entries the quick check cannot vouch for', async () => {
    const valid = prepareEntry({ line: 1, value: { to: 'a@example.com', template: 'welcome', settings: { trackOpens: false } } }, 0, {}, key, clock);
    expect(valid).not.toBeInstanceOf(Promise);
    expect(valid).toEqual({ ok: true, index: 0, line: 1, email: { template: 'welcome', to: 'a@example.com', variables: {}, settings: { trackOpens: false }, idempotencyKey: 'mr-run-0' } });
    const invalid = prepareEntry({ line: 2, value: { to: 'a@example.com', template: 'welcome', settings: { trackOpens: 'no' } } }, 1, {}, key, clock);
    expect(invalid).toBeInstanceOf(Promise);
    expect(await invalid).toMatchObject({ ok: false, index: 1, line: 2, error: expect.stringMatching(/settings\.trackOpens/) });
  });
});
