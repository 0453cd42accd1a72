import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { decodeLine, lineSchema } from '../../src/sandbox/journal-lines.js';
import { Persistence } from '../../src/sandbox/persistence.js';
import { SandboxState, type InboxEmail } from '../../src/sandbox/state.js';

// Replay checks the lines a journal holds by the thousand by hand, and only the others (and any
// line the hand check refuses) with the schema: the hand check must never accept a line the schema
// refuses, or a damaged journal would load silently.

const email = {
  id: 'trs_1',
  messageId: 'm-1',
  status: 'SCHEDULED',
  type: 'raw',
  to: 'ada@customer.test',
  from: 'shop@example.com',
  subject: 'Hi',
  html: '<p>Hi</p>',
  text: 'Hi',
  settings: { trackClicks: true, trackOpens: false },
  createdAt: '2026-11-26T07:59:54.163Z',
  sendAt: '2026-11-27T07:59:54.163Z',
  idempotencyKey: 'k-1',
};
const valid: Record<string, unknown>[] = [
  { t: 'e', c: 'ctc_1', email },
  { t: 'e', rf: 'shop@example.com', email: { ...email, status: 'SENT', sendAt: undefined } },
  { t: 'e', w: 'wrk_2', email: { ...email, type: 'templated', template: 'welcome', text: undefined } },
  { t: 'sent', id: 'trs_1' },
  { t: 'sent', id: 'trs_1', type: 'templated', w: 'wrk_2' },
  { t: 'delivery', record: { id: 'dlv_1', webhookId: 'wh_1', event: 'CONTACT_CREATED', url: 'http://127.0.0.1:9/h', attempt: 1, durationMs: 3, createdAt: email.createdAt } },
  { t: 'delivery', dropped: true, record: { webhookId: 'wh_1', event: 'CONTACT_CREATED', url: 'http://127.0.0.1:9/h', attempt: 2 } },
];

const WRONG: unknown[] = [undefined, null, 0, 1.5, '', 'x', true, false, [], {}, 'BOGUS', '2026-13-99'];

/** Every line with one field (at any depth) removed or replaced by each wrong value. */
function mutations(value: unknown): unknown[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return WRONG;
  const out: unknown[] = [];
  for (const key of Object.keys(value)) {
    for (const m of [...mutations((value as Record<string, unknown>)[key]), Symbol.for('delete')]) {
      const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
      if (m === Symbol.for('delete')) delete copy[key];
      else copy[key] = m;
      out.push(copy);
    }
  }
  return out;
}

const schemaAccepts = (json: unknown) => {
  const w = (json as { w?: unknown } | null)?.w;
  return lineSchema.safeParse(json).success && (w === undefined || typeof w === 'string');
};

describe('journal lines: the quick check of replay agrees with the schema', () => {
  test('every valid line decodes; every damaged variant of it is refused exactly when the schema refuses it', () => {
    let refused = 0;
    for (const line of valid) {
      expect(schemaAccepts(line)).toBe(true);
      expect(decodeLine(JSON.stringify(line))).toBeDefined();
      for (const m of mutations(line)) {
        const text = JSON.stringify(m);
        if (text === undefined) continue;
        const decoded = decodeLine(text);
        expect(decoded !== undefined, text).toBe(schemaAccepts(JSON.parse(text)));
        if (decoded === undefined) refused += 1;
      }
    }
    expect(refused).toBeGreaterThan(300);
  });

  test('what is decoded holds the fields the schema keeps: not `w`, not unknown keys', () => {
    expect(decodeLine(JSON.stringify({ t: 'sent', id: 'trs_1', type: 'raw', w: 'wrk_2', extra: 1 }))).toEqual({ t: 'sent', id: 'trs_1', type: 'raw', w: 'wrk_2' });
    const record = { webhookId: 'wh_1', event: 'CONTACT_CREATED', url: 'http://127.0.0.1:9/h', attempt: 1, kept: 'yes' };
    expect(decodeLine(JSON.stringify({ t: 'delivery', record, extra: 1 }))).toEqual({ t: 'delivery', record });
    expect(decodeLine(JSON.stringify({ t: 'delivery', record, dropped: true }))).toEqual({ t: 'delivery', record, dropped: true });
    const change = decodeLine(JSON.stringify({ t: 'e', c: 'ctc_1', extra: 1, email }));
    expect(change).toEqual({
      t: 'email',
      email,
      result: { id: 'trs_1', messageId: 'm-1', status: 'SCHEDULED', to: 'ada@customer.test', type: 'raw', from: 'shop@example.com', subject: 'Hi' },
      contact: { id: 'ctc_1', email: 'ada@customer.test', properties: { status: 'SUBSCRIBED' }, createdAt: email.createdAt, updatedAt: email.createdAt },
    });
  });

  test('a line read through the schema keeps the fields of its records in their order, as the inspection API answered them before the restart', () => {
    const { sendAt: _sendAt, ...sent } = { ...email, status: 'SENT', requestId: 'req_1', contactProperties: { plan: 'team' } };
    const updated = { id: 'ctc_1', email: email.to, properties: { status: 'SUBSCRIBED', plan: 'team' }, createdAt: '2026-11-25T07:59:54.163Z', updatedAt: email.createdAt };
    const change = decodeLine(JSON.stringify({ t: 'e', contact: updated, email: sent }));
    expect(change?.t).toBe('email');
    expect(JSON.stringify(change?.t === 'email' && change.email)).toBe(JSON.stringify(sent));
    const hook = { id: 'wh_1', url: 'http://127.0.0.1:9/h', events: ['CONTACT_CREATED'], displayName: 'ci', token: 'wht_t', createdAt: email.createdAt, status: 'ACTIVE' };
    const saved = decodeLine(JSON.stringify({ t: 'webhook', webhook: hook }));
    expect(JSON.stringify(saved?.t === 'webhook' && saved.webhook)).toBe(JSON.stringify(hook));
  });

  test('a damaged line amid a journal (well-formed JSON, not a change) refuses the start, naming the file and line; a torn last line is dropped', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-journal-lines-'));
    try {
      const file = join(dir, 'state.json');
      const p = await Persistence.open(file, () => SandboxState.fresh('sk_live_lines_damaged'), (err) => {
        throw err;
      });
      await p.start();
      p.current.onChange = (change) => p.record(change);
      for (let i = 0; i < 5; i++) {
        const { sendAt: _sendAt, idempotencyKey: _key, ...rest } = email;
        const e = { ...rest, id: `trs_${i}`, status: 'SENT', type: 'raw' } as InboxEmail;
        p.current.acceptEmail(e, { id: e.id, messageId: e.messageId, status: 'SENT', to: e.to, type: 'raw' }, new Date());
      }
      await p.durable();
      p.abandon();
      const journal = join(dir, (await readdir(dir)).find((f) => f.includes('.journal-'))!);
      const lines = (await readFile(journal, 'utf8')).trim().split('\n');
      const torn = `${lines.join('\n')}\n{"t":"e","email":{"id":"trs_9","mess`;
      await writeFile(journal, torn);
      const reopened = await Persistence.open(file, () => SandboxState.fresh(undefined), () => undefined);
      expect(reopened.current.emails.map((e) => e.id)).toEqual(['trs_0', 'trs_1', 'trs_2', 'trs_3', 'trs_4']);
      reopened.abandon();
      const damaged = JSON.parse(lines[2]!) as { email: Record<string, unknown> };
      damaged.email.status = 'DELIVERED';
      await writeFile(journal, `${[lines[0], lines[1], JSON.stringify(damaged), lines[3], lines[4]].join('\n')}\n`);
      await expect(Persistence.open(file, () => SandboxState.fresh(undefined), () => undefined)).rejects.toThrow(`data journal ${journal} is damaged at line 3`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
