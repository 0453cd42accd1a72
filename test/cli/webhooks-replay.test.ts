import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { startApp } from '../webhook/helpers/test-app.js';
import { FIRED, recordJournal, REPLAY_TOKEN as token } from '../webhook/helpers/replay-journal.js';
import { runInProcess } from '../helpers/context.js';

// `webhooks replay` in-process; a closed stdout is in test/e2e/webhooks-replay.test.ts.

describe('webhooks replay', () => {
  let sandbox: TestSandbox;
  const journal = join(mkdtempSync(join(tmpdir(), 'mailroom-replay-')), 'journal.ndjson');
  let sent: string[] = [];
  let webhookId = '';

  beforeAll(async () => {
    sandbox = await withSandbox();
    ({ sent, webhookId } = await recordJournal(sandbox, journal));
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('re-delivers exactly the accepted journalled events, in order, with valid signatures', async () => {
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(FIRED.length + 1);
    const app = await startApp(token);
    try {
      const res = await runInProcess(['webhooks', 'replay', '--journal', journal, '--forward-to', app.url], { env: { MAILROOM_WEBHOOK_TOKEN: token } });
      expect(res.code).toBe(0);
      expect(app.received.map((r) => r.body.toString())).toEqual(sent);
      expect(app.received.every((r) => r.signatureValid)).toBe(true);
      const lines = res.stdout.trim().split('\n').map((l) => JSON.parse(l) as { event: string; forward: { status: number } });
      expect(lines.map((l) => [l.event, l.forward.status])).toEqual(FIRED.map((e) => [e, 200]));
      expect(res.stderr).toBe(`Replayed 4 of 4 deliveries to ${app.url}: 4 ok, 0 failed\n`);
      expect(res.stdout + res.stderr).not.toContain(token);
    } finally {
      await app.close();
    }
  });

  it('counts in the human lines carry thousands separators; the JSON lines stay plain', async () => {
    // The journal's four accepted deliveries 300 times over: 1,200 to replay, every 50th refused by the app.
    const many = join(mkdtempSync(join(tmpdir(), 'mailroom-replay-many-')), 'journal.ndjson');
    writeFileSync(many, readFileSync(journal, 'utf8').repeat(300));
    const app = await startApp(token, (n) => (n % 50 === 0 ? 500 : 200));
    try {
      const res = await runInProcess(['webhooks', 'replay', '--journal', many, '--forward-to', app.url, '--token', token]);
      expect(res.code).toBe(7);
      expect(app.received).toHaveLength(1200);
      expect(res.stderr).toContain(`Replayed 1,200 of 1,200 deliveries to ${app.url}: 1,176 ok, 24 failed\n`);
      expect(res.stderr).toContain('mailroom: 24 of 1,200 replayed deliveries failed\n');
      expect(res.stdout.trim().split('\n')).toHaveLength(1200);
    } finally {
      await app.close();
    }
  });

  it('filters by --event and --since', async () => {
    const app = await startApp(token);
    try {
      const one = await runInProcess(['webhooks', 'replay', '--journal', journal, '--event', 'CONTACT_DELETED', '--forward-to', app.url, '--token', token]);
      expect(one.code).toBe(0);
      expect(app.received.map((r) => r.body.toString())).toEqual([sent[3]]);
      const none = await runInProcess(['webhooks', 'replay', '--journal', journal, '--since', '2099-01-01T00:00:00Z', '--forward-to', app.url, '--token', token]);
      expect(none.code).toBe(0);
      expect(none.stderr).toContain('Nothing to replay');
      const recent = await runInProcess(['webhooks', 'replay', '--journal', journal, '--since', '1h', '--forward-to', app.url, '--token', token]);
      expect(recent.code).toBe(0);
      expect(app.received).toHaveLength(1 + FIRED.length);
    } finally {
      await app.close();
    }
  });

  it('takes the token from the API with --webhook', async () => {
    const app = await startApp(token);
    try {
      const res = await runInProcess(['webhooks', 'replay', '--journal', journal, '--webhook', webhookId, '--event', 'CONTACT_CREATED', '--forward-to', app.url], {
        env: { MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_BASE_URL: sandbox.baseUrl },
      });
      expect(res.code).toBe(0);
      expect(app.received.map((r) => [r.body.toString(), r.signatureValid])).toEqual([[sent[0], true]]);
    } finally {
      await app.close();
    }
  });

  it('tries every delivery and exits 7 when the app refuses some', async () => {
    const app = await startApp(token, (n) => (n === 2 ? 500 : 200));
    try {
      const res = await runInProcess(['webhooks', 'replay', '--journal', journal, '--forward-to', app.url, '--token', token]);
      expect(res.code).toBe(7);
      expect(app.received).toHaveLength(FIRED.length);
      expect(res.stderr).toContain('mailroom: 1 of 4 replayed deliveries failed');
    } finally {
      await app.close();
    }
  });

  it('exits 2 without a token, and on a missing journal', async () => {
    const noToken = await runInProcess(['webhooks', 'replay', '--journal', journal, '--forward-to', 'http://127.0.0.1:9/x']);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('MAILROOM_WEBHOOK_TOKEN');
    const missing = await runInProcess(['webhooks', 'replay', '--journal', `${journal}.nope`, '--forward-to', 'http://127.0.0.1:9/x', '--token', token]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no such file/);
  });
});
