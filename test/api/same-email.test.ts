import { describe, expect, it } from 'vitest';
import { otherEmail, emailDifferences } from '../../src/api/same-email.js';
import type { EmailRequest, EmailResult } from '../../src/schema/index.js';

const raw: EmailRequest = { from: 'Ops <ops@example.com>', to: 'ada@example.com', subject: 'Hi', html: '<p>Hi</p>', idempotencyKey: 'k' };
const answer = (more: Record<string, unknown> = {}): EmailResult => ({ id: 'trs_1', messageId: 'm1', status: 'SENT', to: 'ada@example.com', type: 'raw', from: 'Ops <ops@example.com>', subject: 'Hi', ...more }) as EmailResult;
const fields = (sent: EmailRequest, got: EmailResult) => emailDifferences(sent, got).map((d) => d.field);

describe('the same email under an idempotency key, or another one', () => {
  it('the same email (address case, a repeated answer) is no difference', () => {
    expect(fields({ ...raw, to: 'Ada@Example.com', from: 'Ops <OPS@example.com>' }, answer())).toEqual([]);
    expect(otherEmail(raw, answer())).toBeUndefined();
  });

  it('compares every field the answer holds: sender address and name, recipient, subject, group, reply-to, cc and bcc, variables, sendAt as an instant', () => {
    expect(fields({ ...raw, from: 'Billing <billing@example.com>' }, answer())).toEqual(['from']);
    expect(fields({ ...raw, from: 'Other name <ops@example.com>' }, answer())).toEqual(['from']);
    // An answer that gives the address alone is compared by address: the API may drop the name.
    expect(fields(raw, answer({ from: 'ops@example.com' }))).toEqual([]);
    expect(fields({ ...raw, from: 'ops@example.com', fromName: 'Ops' }, answer())).toEqual([]);
    expect(fields({ ...raw, from: 'ops@example.com', fromName: 'Sales' }, answer())).toEqual(['from']);
    expect(fields(raw, answer({ groupBy: 'spring' }))).toEqual(['groupBy']);
    expect(fields({ ...raw, replyTo: 'help@example.com' }, answer({ replyTo: 'HELP@example.com' }))).toEqual([]);
    expect(fields({ ...raw, replyTo: 'help@example.com' }, answer({ replyTo: 'sales@example.com' }))).toEqual(['replyTo']);
    expect(fields(raw, answer({ cc: ['x@example.com'] }))).toEqual(['cc']);
    expect(fields({ ...raw, sendAt: '2030-01-01T10:00:00+01:00' }, answer({ status: 'SCHEDULED', sendAt: '2030-01-01T09:00:00.000Z' }))).toEqual([]);
    expect(fields({ ...raw, sendAt: '2030-01-01T10:00:00Z' }, answer({ status: 'SCHEDULED', sendAt: '2030-01-01T09:00:00.000Z' }))).toEqual(['sendAt']);
    expect(fields(raw, answer({ status: 'SCHEDULED' }))).toEqual(['sendAt']);
    const t: EmailRequest = { template: 'welcome', to: 'ada@example.com', variables: { name: 'Ada', n: 1 } };
    const tAnswer = answer({ type: 'templated', from: undefined, subject: 'Welcome, Ada', template: 'welcome', variables: { n: 1, name: 'Ada' } });
    // A subject rendered from the template is not the request's to compare.
    expect(fields(t, tAnswer)).toEqual([]);
    expect(fields({ ...t, variables: { name: 'Bob', n: 1 } }, tAnswer)).toEqual(['variables']);
    expect(fields(t, answer())).toEqual(['type']);
  });

  it('says what the first email was and each field that differs, there and here', () => {
    expect(otherEmail({ ...raw, from: 'Billing <billing@example.com>', subject: 'Refund' }, answer())).toBe(
      'trs_1, to ada@example.com, subject "Hi"; from there "Ops <ops@example.com>", here "Billing <billing@example.com>"; subject there "Hi", here "Refund"',
    );
  });
});
