import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { deliveryLine, deliveryRecord, type ShownDelivery } from '../../src/webhook/shown-delivery.js';

const plain = new Chalk({ level: 0 });
// The terminal line shows the local time of receivedAt.
const t = new Date('2026-11-22T08:14:03.120Z');
const hhmmss = [t.getHours(), t.getMinutes(), t.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
const base: ShownDelivery = {
  receivedAt: '2026-11-22T08:14:03.120Z',
  path: '/hooks',
  status: 200,
  verified: true,
  event: { event: 'CONTACT_CREATED', createdAt: '2026-11-22T08:14:03.000Z', data: { contact: { email: 'ada@example.com' } }, shape: 'spec' },
};

describe('delivery lines', () => {
  it('shows time, event, who and verification on a terminal, with the forward result', () => {
    expect(deliveryLine({ ...base, forward: { url: 'http://x', status: 200, durationMs: 4 } }, plain)).toBe(`${hhmmss}  CONTACT_CREATED  ada@example.com  verified ✓  → 200 (4 ms)`);
    expect(deliveryLine({ ...base, forward: { url: 'http://x', error: 'connection refused by x (is your app running?)', durationMs: 1 } }, plain)).toContain('→ failed: connection refused');
    const member = { ...base, event: { ...base.event!, event: 'WORKSPACE_TEAM_MEMBER_JOINED', data: { user: { email: 'g@example.com', name: 'Grace Hopper' } } } };
    expect(deliveryLine(member, plain)).toContain('Grace Hopper <g@example.com>');
  });

  it('shows a refusal with its status and reason', () => {
    expect(deliveryLine({ receivedAt: base.receivedAt, path: '/x', status: 401, verified: false, reason: 'no signature header' }, plain)).toBe(`${hhmmss}  401 ✗ no signature header  (/x)`);
  });

  it('writes the NDJSON record of the brief: receivedAt, event, createdAt, verified, data, forward', () => {
    expect(deliveryRecord({ ...base, forward: { url: 'http://x', status: 200, durationMs: 4 } })).toEqual({
      receivedAt: base.receivedAt,
      event: 'CONTACT_CREATED',
      createdAt: '2026-11-22T08:14:03.000Z',
      verified: true,
      data: { contact: { email: 'ada@example.com' } },
      forward: { url: 'http://x', status: 200, durationMs: 4 },
    });
  });
});

describe('delivery lines show what came over the network escaped', () => {
  it('an ESC sequence in the path, the contact address or the reason never reaches the terminal raw', () => {
    const evil = '\u001b]0;pwned\u0007\u001b[2J';
    const refused = deliveryLine({ ...base, status: 401, reason: `bad signature${evil}`, path: `/hooks${evil}`, event: undefined }, plain);
    expect(refused).toContain('bad signature\\u001b]0;pwned\\u0007\\u001b[2J');
    expect(refused).toContain('(/hooks\\u001b]0;pwned');
    const accepted = deliveryLine({ ...base, event: { ...base.event!, data: { contact: { email: `ada@example.com${evil}\r\nfake line` } } } }, plain);
    expect(accepted).toContain('ada@example.com\\u001b]0;pwned\\u0007\\u001b[2J\\r\\nfake line');
    // eslint-disable-next-line no-control-regex
    for (const line of [refused, accepted]) expect(line).not.toMatch(/[\u0000-\u001f]/);
  });
});
