import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Mailroom, ValidationError } from '../../src/library/index.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';

const email = (to: string, idempotencyKey?: string) => ({ from: 'ops@example.com', to, subject: 'Hello', html: '<p>Hi</p>', ...(idempotencyKey ? { idempotencyKey } : {}) });

/** Nothing the caller gave vanishes: every entry is sent or failed, and failures name their entry. */
function accountsForAll(result: { successful: unknown[]; failed: Array<{ index?: number }> }, n: number) {
  expect(result.successful.length + result.failed.length).toBe(n);
  for (const f of result.failed) expect(f.index).toEqual(expect.any(Number));
}

describe('an idempotency key reused for another email is never reported as sent', () => {
  let sandbox: TestSandbox;
  let mailroom: Mailroom;
  let state: string;
  beforeAll(async () => {
    sandbox = await withSandbox();
    state = mkdtempSync(join(tmpdir(), 'mailroom-send-batch-'));
    mailroom = new Mailroom({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl, env: { MAILROOM_STATE_DIR: state } });
  });
  afterAll(async () => {
    await mailroom.close();
    await sandbox.close();
    rmSync(state, { recursive: true, force: true });
  });
  afterEach(() => sandbox.reset());

  it('sendBatch: two entries with one key and other content are refused before anything is sent', async () => {
    const err = await mailroom.emails.sendBatch([email('one@example.com', 'k-1'), email('two@example.com', 'k-1')]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toBe('emails.sendBatch: email 1: idempotencyKey "k-1" is also email 0\'s, with other content: the API would answer with that email and send nothing');
    expect(await sandbox.emails()).toEqual([]);
  });

  it('sendBatch: the same email twice under one key is one email, reported for both entries', async () => {
    const result = await mailroom.emails.sendBatch([email('one@example.com', 'k-2'), email('one@example.com', 'k-2')]);
    accountsForAll(result, 2);
    expect(result.failed).toEqual([]);
    expect(result.successful[0]!.id).toBe(result.successful[1]!.id);
    expect(await sandbox.emails()).toHaveLength(1);
  });

  it('sendBatch: a key send() used for another email fails that entry (and only it) as an idempotency conflict', async () => {
    const first = await mailroom.emails.send(email('one@example.com', 'k-3'));
    const result = await mailroom.emails.sendBatch([email('zero@example.com'), email('two@example.com', 'k-3'), email('three@example.com')]);
    accountsForAll(result, 3);
    expect(result.successful.map((r) => r.to)).toEqual(['zero@example.com', 'three@example.com']);
    expect(result.failed).toEqual([
      expect.objectContaining({
        index: 1,
        error: 'IdempotencyConflict',
        idempotencyKey: 'k-3',
        message: `idempotency key k-3 was already used for another email (${first.email.id}, to one@example.com, subject "Hello"; to there "one@example.com", here "two@example.com"): the API returned that one and sent nothing new`,
      }),
    ]);
    expect((await sandbox.emails()).map((e) => e.to).sort()).toEqual(['one@example.com', 'three@example.com', 'zero@example.com']);
  });

  it('emails.batch: the same key send() used fails that entry as a conflict, and the entries around it are sent', async () => {
    await mailroom.emails.send(email('one@example.com', 'k-4'));
    const summary = await mailroom.emails.batch([email('zero@example.com'), email('two@example.com', 'k-4'), email('three@example.com')], { journal: join(state, 'conflict.journal') });
    expect(summary).toMatchObject({ total: 3, sent: 2, failed: 1, uncertain: 0, invalid: 0 });
    expect(summary.errors).toEqual([expect.objectContaining({ index: 1, error: expect.stringMatching(/^idempotency key k-4 was already used for another email \(trs_\w+, to one@example\.com/) })]);
    expect((await sandbox.emails()).map((e) => e.to).sort()).toEqual(['one@example.com', 'three@example.com', 'zero@example.com']);
  });

  it('emails.batch: one key on two entries with other content: the second is invalid, never sent', async () => {
    const summary = await mailroom.emails.batch([email('one@example.com', 'k-5'), email('two@example.com', 'k-5')], { journal: join(state, 'twice.journal') });
    expect(summary).toMatchObject({ total: 2, sent: 1, failed: 1, invalid: 1 });
    expect((await sandbox.emails()).map((e) => e.to)).toEqual(['one@example.com']);
  });
});
