import { describe, expect, it } from 'vitest';
import { matchBatch } from '../../src/batch/match.js';
import type { EmailRequest, EmailResult } from '../../src/schema/index.js';

const emails: EmailRequest[] = ['a', 'b', 'c', 'd'].map((n) => ({ from: 'o@example.com', to: `${n}@example.com`, subject: 's', html: 'h', idempotencyKey: `k-${n}` }));
const result = (to: string): EmailResult => ({ id: `trs_${to}`, messageId: 'm', status: 'SENT', to });

describe('matching a batch answer to the request', () => {
  it('places failures by index and successes by order', () => {
    const m = matchBatch(emails, { successful: [result('a@example.com'), result('c@example.com'), result('d@example.com')], failed: [{ index: 1, message: 'bad' }] });
    expect(m.failed.map((f) => f.pos)).toEqual([1]);
    expect(m.successful.map((s) => [s.pos, s.result.to])).toEqual([[0, 'a@example.com'], [2, 'c@example.com'], [3, 'd@example.com']]);
    expect(m.unknown).toEqual([]);
  });

  it('places a failure without index by idempotencyKey, else by a unique to', () => {
    const m = matchBatch(emails, { successful: [result('a@example.com'), result('d@example.com')], failed: [{ idempotencyKey: 'k-c', message: 'x' }, { to: 'B@example.com', message: 'y' }] });
    expect(m.failed.map((f) => f.pos).sort()).toEqual([1, 2]);
    expect(m.unknown).toEqual([]);
  });

  it('leaves unknown what the answer does not account for: a missing success, an unplaceable failure', () => {
    const twins: EmailRequest[] = [emails[0]!, { ...emails[1]!, to: 'a@example.com', idempotencyKey: 'k-a2' }, emails[2]!];
    const m = matchBatch(twins, { successful: [result('a@example.com')], failed: [{ to: 'a@example.com', message: 'which one?' }, { index: 99, message: 'out of range' }] });
    expect(m.failed).toEqual([]);
    expect(m.successful.map((s) => s.pos)).toEqual([0]);
    expect(m.unknown).toEqual([1, 2]);
  });

  it('does not pair a success with the wrong entry when one in the middle is missing', () => {
    const m = matchBatch(emails, { successful: [result('a@example.com'), result('c@example.com'), result('d@example.com')], failed: [] });
    expect(m.successful.map((s) => [s.pos, s.result.to])).toEqual([[0, 'a@example.com'], [2, 'c@example.com'], [3, 'd@example.com']]);
    expect(m.unknown).toEqual([1]);
  });
});

describe('an answer that is another email: the key was used before', () => {
  it('with a result for every position, they pair in order and the odd one is a conflict, not a success', () => {
    const m = matchBatch(emails.slice(0, 3), { successful: [result('a@example.com'), result('z@example.com'), result('c@example.com')], failed: [] });
    expect(m.successful.map((s) => s.pos)).toEqual([0, 2]);
    expect(m.conflicts).toEqual([{ pos: 1, result: result('z@example.com'), other: 'trs_z@example.com, to z@example.com; to there "z@example.com", here "b@example.com"' }]);
    expect(m.unknown).toEqual([]);
  });

  it('the same recipient with another subject is a conflict too', () => {
    const m = matchBatch(emails.slice(0, 1), { successful: [{ ...result('a@example.com'), subject: 'other' }], failed: [] });
    expect(m.conflicts.map((c) => c.pos)).toEqual([0]);
    expect(m.successful).toEqual([]);
  });

  it('with results missing, one that does not fit is left unknown (resent), never called a conflict', () => {
    const m = matchBatch(emails.slice(0, 3), { successful: [result('a@example.com'), { ...result('c@example.com'), subject: 'other' }], failed: [] });
    expect(m.successful.map((s) => s.pos)).toEqual([0]);
    expect(m.conflicts).toEqual([]);
    expect(m.unknown).toEqual([1, 2]);
  });
});

describe('reading a batch answer', () => {
  it('keeps each readable result, leaves out odd ones so their entries are resent, tolerates any failure shape', async () => {
    const { readBatchAnswer } = await import('../../src/api/emails.js');
    const reply = (body: unknown) => ({ status: 200, body, headers: {} });
    const answer = readBatchAnswer(reply({
      emails: {
        successful: [result('a@example.com'), { to: 'b@example.com', status: 'SENT' }, { id: 'trs_c', to: 'c@example.com', status: 'QUEUED_LATER' }, 'junk'],
        failed: [{ index: 3, statusCode: 400, error: 'Bad Request', message: 'no' }, 'weird', { reason: 'x' }],
      },
    }));
    expect(answer.successful.map((r) => r.to)).toEqual(['a@example.com', 'c@example.com']);
    expect(answer.failed).toMatchObject([{ index: 3, message: 'no' }, { message: 'weird' }, { message: '{"reason":"x"}' }]);
    const m = matchBatch(emails, answer);
    expect(m.successful.map((s) => s.pos)).toEqual([0, 2]);
    expect(m.failed.map((f) => f.pos)).toEqual([3]);
    expect(m.unknown).toEqual([1]);
    expect(() => readBatchAnswer(reply({ email: {} }))).toThrow(/unexpected batch response/);
  });
});
