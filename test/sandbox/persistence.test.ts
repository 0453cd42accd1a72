import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { resolveConfig } from '../../src/sandbox/config.js';
import { loadSnapshot, Persistence, readJournal } from '../../src/sandbox/persistence.js';
import { SandboxState, type InboxEmail } from '../../src/sandbox/state.js';
import { workspaceParts } from '../../src/sandbox/workspaces.js';
import { withText } from '../../src/sandbox/text.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailroom-persist-'));
});
/** Started in a test and, to play a crash, never closed there: closed after it, so no file handle is left to the garbage collector. */
const left: Persistence[] = [];
afterEach(async () => {
  for (const p of left.splice(0)) await p.close().catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

const noError = (err: Error) => {
  throw err;
};

function sampleEmail(id: string, extra: Partial<InboxEmail> = {}): InboxEmail {
  return { id, messageId: `m-${id}`, status: 'SENT', type: 'raw', to: `${id}@x.test`, html: '<p>h</p>', text: 'h', settings: { trackClicks: true, trackOpens: false }, createdAt: new Date().toISOString(), ...extra };
}

/** Every change a sandbox makes, through the state's own methods. */
function changeEverything(state: SandboxState): void {
  const now = new Date();
  state.acceptEmail(sampleEmail('trs_a', { idempotencyKey: 'key-a' }), { id: 'trs_a', messageId: 'm-trs_a', status: 'SENT', to: 'trs_a@x.test', type: 'raw' }, now);
  const later = sampleEmail('trs_b', { status: 'SCHEDULED', sendAt: new Date(Date.now() + 60_000).toISOString() });
  state.acceptEmail(later, { id: 'trs_b', messageId: 'm-trs_b', status: 'SCHEDULED', to: 'trs_b@x.test', type: 'raw' }, now);
  state.markSent(later);
  state.acceptEmail(sampleEmail('trs_c'), { id: 'trs_c', messageId: 'm-trs_c', status: 'SENT', to: 'trs_c@x.test', type: 'raw' }, now);
  state.deleteEmail('trs_c');
  const key = state.addKey('ci', 'VIEWER', 'sk_live_journaled_key');
  key.displayName = 'ci renamed';
  state.saveKey(key);
  state.deleteKey(state.addKey('gone', 'API_USER', 'sk_live_deleted_key'));
  const hook = { id: 'wh_1', url: 'http://127.0.0.1:9/h', events: ['CONTACT_CREATED'], token: 'wht_t', createdAt: now.toISOString() };
  state.saveWebhook(hook);
  hook.events = ['CONTACT_UPDATED'];
  state.saveWebhook(hook);
  state.saveWebhook({ ...hook, id: 'wh_2' });
  state.deleteWebhook(state.webhooks.get('wh_2')!);
  const contact = { id: 'cnt_1', email: 'Ada@x.test', properties: { status: 'SUBSCRIBED' }, createdAt: now.toISOString(), updatedAt: now.toISOString() };
  state.saveContact(contact);
  state.saveContact({ ...contact, id: 'cnt_2', email: 'gone@x.test' });
  state.deleteContact(state.contacts.get('gone@x.test')!);
  state.addDelivery({ webhookId: 'wh_1', event: 'CONTACT_CREATED', url: hook.url, attempt: 1, statusCode: 200, durationMs: 3, createdAt: now.toISOString() });
}

/** The state as the sandbox serves it, for comparing a restored state with the one saved. */
function observable(state: SandboxState) {
  return {
    ...state.snapshot(),
    emails: state.emails.map((e) => ({ ...e })),
    idempotency: [...state.idempotency].sort(),
    bySecret: [...state.keysBySecret.keys()].sort(),
  };
}

/** Opened and started, with the state's changes going to the journal, as startSandbox wires it. */
async function started(...args: Parameters<typeof Persistence.open>): Promise<Persistence> {
  const p = await Persistence.open(...args);
  left.push(p);
  await p.start();
  p.current.onChange = (change) => p.record(change);
  return p;
}

describe('Persistence (--data): snapshot plus journal', () => {
  test('every kind of change is on disk once durable() resolves: a process that dies then (no close) loses none of it', async () => {
    const file = join(dir, 'state.json');
    const first = await started(file, () => SandboxState.fresh('sk_live_persist'), noError);
    changeEverything(first.current);
    await first.durable();
    // No close(): as after a SIGKILL, only what is on disk remains.
    const second = await Persistence.open(file, () => SandboxState.fresh('sk_live_other'), noError);
    expect(observable(second.current)).toEqual(observable(first.current));
    expect(second.current.sentIn(new Date())).toBe(3);
    expect(second.current.keysBySecret.get('sk_live_journaled_key')?.displayName).toBe('ci renamed');
  });

  test('a reset and the inbox’s clear-all are journaled too; replaying a journal twice changes nothing', async () => {
    const file = join(dir, 'state.json');
    const p = await started(file, () => SandboxState.fresh('sk_live_reset'), noError);
    changeEverything(p.current);
    p.current.reset();
    p.current.acceptEmail(sampleEmail('trs_cleared'), { id: 'trs_cleared', messageId: 'm', status: 'SENT', to: 'a@x.test', type: 'raw' }, new Date());
    expect(p.current.clearEmails()).toBe(1);
    p.current.acceptEmail(sampleEmail('trs_after'), { id: 'trs_after', messageId: 'm', status: 'SENT', to: 'a@x.test', type: 'raw' }, new Date());
    await p.durable();
    const restored = (await Persistence.open(file, () => SandboxState.fresh(undefined), noError)).current;
    expect(restored.emails.map((e) => e.id)).toEqual(['trs_after']);
    expect(restored.contacts.size).toBe(0);
    expect(restored.webhooks.has('wh_1')).toBe(true);
    const journal = (await readdir(dir)).find((f) => f.includes('.journal-'))!;
    for (const change of await readJournal(join(dir, journal))) restored.apply(change);
    expect(restored.emails.map((e) => e.id)).toEqual(['trs_after']);
  });

  test('a torn last line (the write the process died in) is dropped; damage before it is refused', async () => {
    const file = join(dir, 'state.json');
    const p = await started(file, () => SandboxState.fresh('sk_live_torn'), noError);
    p.current.acceptEmail(sampleEmail('trs_1'), { id: 'trs_1', messageId: 'm', status: 'SENT', to: 'a@x.test', type: 'raw' }, new Date());
    await p.durable();
    const journal = join(dir, (await readdir(dir)).find((f) => f.includes('.journal-'))!);
    await appendFile(journal, '{"t":"email","email":{"id":"trs_2","mess');
    expect((await Persistence.open(file, () => SandboxState.fresh(undefined), noError)).current.emails.map((e) => e.id)).toEqual(['trs_1']);
    await writeFile(journal, `garbage\n${await readFile(journal, 'utf8')}`);
    await expect(Persistence.open(file, () => SandboxState.fresh(undefined), noError)).rejects.toThrow(/is damaged at line 1/);
  });

  test('compaction writes a new snapshot in the background and drops the journals it covers; close leaves the data file alone', async () => {
    const file = join(dir, 'state.json');
    const p = await started(file, () => SandboxState.fresh('sk_live_compact'), noError, 4096);
    for (let i = 0; i < 200; i++) {
      p.current.acceptEmail(sampleEmail(`trs_${i}`), { id: `trs_${i}`, messageId: 'm', status: 'SENT', to: 'a@x.test', type: 'raw' }, new Date());
    }
    await p.durable();
    await p.idle();
    const saved = JSON.parse(await readFile(file, 'utf8'));
    expect(saved.emails.length).toBeGreaterThan(0);
    const journals = (await readdir(dir)).filter((f) => f.includes('.journal-'));
    expect(journals.every((f) => Number(f.split('-').pop()) >= saved.journal)).toBe(true);
    expect((await Persistence.open(file, () => SandboxState.fresh(undefined), noError)).current.emails.length).toBe(200);
    await p.close();
    expect(await readdir(dir)).toEqual(['state.json']);
    expect(JSON.parse(await readFile(file, 'utf8')).emails.length).toBe(200);
  });

  test('a crash between switching journals and renaming the snapshot replays the old snapshot and every journal since', async () => {
    const file = join(dir, 'state.json');
    const p = await started(file, () => SandboxState.fresh('sk_live_between'), noError);
    const old = await readFile(file, 'utf8');
    p.current.acceptEmail(sampleEmail('trs_1'), { id: 'trs_1', messageId: 'm', status: 'SENT', to: 'a@x.test', type: 'raw' }, new Date());
    await p.durable();
    const seq = JSON.parse(old).journal as number;
    // What a compaction leaves if it dies before the rename: the next journal begun, the old snapshot in place.
    await writeFile(`${file}.journal-${seq + 1}`, `${JSON.stringify({ t: 'sent', id: 'trs_x' })}\n${JSON.stringify({ t: 'emailDeleted', id: 'trs_1' })}\n`);
    await writeFile(`${file}.${process.pid}.tmp`, old.slice(0, 20));
    const restored = await Persistence.open(file, () => SandboxState.fresh(undefined), noError);
    expect(restored.current.emails).toEqual([]);
    expect(restored.current.sentIn(new Date())).toBe(1);
    expect((await readdir(dir)).some((f) => f.endsWith('.tmp'))).toBe(false);
  });

  test('an email whose text was not read yet is saved without it and reads back with the same text in the same place, from a journal and from a snapshot', async () => {
    const file = join(dir, 'state.json');
    const html = '<h1>Hi Ada</h1><p>Your order <b>#7</b> ships. <a href="https://x.test/t/7">Track it</a>.</p>';
    // As EmailService keeps an email sent without text: the key in its place, the text not made yet.
    const unread = (id: string) => sampleEmail(id, { html, text: undefined, requestId: 'req_1' });
    const p = await started(file, () => SandboxState.fresh('sk_live_lazy'), noError);
    p.current.acceptEmail(unread('trs_unread'), { id: 'trs_unread', messageId: 'm', status: 'SENT', to: 'a@x.test', type: 'raw' }, new Date());
    const read = unread('trs_read');
    p.current.acceptEmail(read, { id: 'trs_read', messageId: 'm', status: 'SENT', to: 'a@x.test', type: 'raw' }, new Date());
    await p.durable();
    const journal = join(dir, (await readdir(dir)).find((f) => f.includes('.journal-'))!);
    const lines = (await readFile(journal, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => 'text' in l.email)).toEqual([false, false]);

    const expected = 'HI ADA\n\nYour order #7 ships. Track it https://x.test/t/7.';
    const check = (emails: InboxEmail[]) => {
      expect(emails.map((e) => e.id)).toEqual(['trs_unread', 'trs_read']);
      for (const email of emails) {
        const keys = Object.keys(email);
        expect(keys.indexOf('text')).toBe(keys.indexOf('html') + 1);
        expect(withText(email)).toBe(expected);
        expect(JSON.parse(JSON.stringify(email))).toEqual({ ...sampleEmail(email.id, { requestId: 'req_1', createdAt: email.createdAt }), html, text: expected });
      }
    };
    check((await Persistence.open(file, () => SandboxState.fresh(undefined), noError)).current.emails);
    // Read once before the snapshot: then it is saved with its text.
    expect(withText(read)).toBe(expected);
    await p.close();
    const saved = JSON.parse(await readFile(file, 'utf8'));
    expect(saved.emails.map((e: InboxEmail) => e.text)).toEqual([undefined, expected]);
    check((await Persistence.open(file, () => SandboxState.fresh(undefined), noError)).current.emails);
  });

  test('a data file in a directory that does not exist is refused at open, naming the file', async () => {
    const file = join(dir, 'later', 'state.json');
    await expect(Persistence.open(file, () => SandboxState.fresh(undefined), noError)).rejects.toThrow(`cannot write data file ${file}: no such directory`);
    await mkdir(join(dir, 'later'));
    const p = await started(file, () => SandboxState.fresh(undefined), noError);
    expect(JSON.parse(await readFile(file, 'utf8')).keys).toHaveLength(1);
    await p.close();
    expect(await readdir(join(dir, 'later'))).toEqual(['state.json']);
  });
});

describe('the journal lines of accepted emails', () => {
  test('one line per accepted email, without a copy of its answer or of the contact it made; read back, every answer, contact and email is the same', async () => {
    const file = join(dir, 'state.json');
    const p = await started(file, () => SandboxState.fresh('sk_live_lines'), noError);
    const parts = workspaceParts(p.current, resolveConfig({}), (change) => p.record(change));
    const now = new Date();
    const inAnHour = new Date(now.getTime() + 3_600_000).toISOString();
    const sends: Record<string, unknown>[] = [
      { from: 'shop@example.com', to: 'ada@customer.test', subject: 'Plain', html: '<p>1</p>', idempotencyKey: 'k-plain' },
      // The answer's `from` is the one sent; the email keeps the name joined in.
      { from: 'shop@example.com', fromName: 'The Shop', to: 'bob@customer.test', subject: 'Named', html: '<p>2</p>', idempotencyKey: 'k-named', groupBy: 'orders' },
      { from: 'The Shop <shop@example.com>', to: 'cy@customer.test', subject: 'Props', html: '<p>3</p>', contactProperties: { plan: 'pro', seats: 3 }, idempotencyKey: 'k-props' },
      { template: 'welcome', to: 'dee@customer.test', variables: { name: 'Dee' }, idempotencyKey: 'k-template' },
      { from: 'shop@example.com', to: 'eve@customer.test', subject: 'Later', html: '<p>5</p>', sendAt: inAnHour, idempotencyKey: 'k-later' },
      // A known address: no contact made; then one whose properties change (updated, kept whole).
      { from: 'shop@example.com', to: 'ada@customer.test', subject: 'Again', html: '<p>6</p>' },
      { from: 'shop@example.com', to: 'ADA@customer.test', subject: 'Upgrade', html: '<p>7</p>', contactProperties: { plan: 'team' }, idempotencyKey: 'k-update' },
      { from: 'shop@example.com', to: 'fay@customer.test', subject: 'Status given', html: '<p>8</p>', contactProperties: { status: 'UNSUBSCRIBED' } },
    ];
    const answers = sends.map((body) => {
      const outcome = parts.emails.send(body, now, 'req_lines');
      if (!outcome.ok) throw new Error(JSON.stringify(outcome.error));
      return outcome.result;
    });
    // An answer that the email's fields would not give back is kept whole.
    const odd = { id: 'trs_odd', messageId: 'm-trs_odd', status: 'SENT', to: 'trs_odd@x.test', type: 'raw', subject: 'Answered' } as const;
    p.current.acceptEmail(sampleEmail('trs_odd', { idempotencyKey: 'k-odd', subject: 'Kept' }), odd, now);
    await p.durable();
    const journal = join(dir, (await readdir(dir)).find((f) => f.includes('.journal-'))!);
    const lines = (await readFile(journal, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.t)).toEqual([...sends.map(() => 'e'), 'e']);
    expect(lines.map((l) => Object.keys(l).filter((k) => k !== 't' && k !== 'email'))).toEqual([['c'], ['c', 'rf'], ['c'], ['c'], ['c'], [], ['contact'], ['contact'], ['result']]);
    expect(lines[1]!.rf).toBe('shop@example.com');

    const again = (await Persistence.open(file, () => SandboxState.fresh(undefined), noError)).current;
    expect(observable(again)).toEqual(observable(p.current));
    for (const [i, body] of sends.entries()) {
      const key = body.idempotencyKey as string | undefined;
      if (key !== undefined) expect(JSON.stringify(again.idempotency.get(key))).toBe(JSON.stringify(answers[i]));
    }
    expect(JSON.stringify([...again.contacts.values()])).toBe(JSON.stringify([...p.current.contacts.values()]));
    expect(again.contacts.get('ada@customer.test')!.properties).toEqual({ status: 'SUBSCRIBED', plan: 'team' });
    expect(again.idempotency.get('k-odd')).toEqual(odd);
    await parts.close();
  });
});

describe('loadSnapshot', () => {
  test('a missing file is a fresh start; other files are refused', async () => {
    expect(await loadSnapshot(join(dir, 'none.json'))).toBeUndefined();
    const notJson = join(dir, 'x.json');
    await writeFile(notJson, 'nope');
    await expect(loadSnapshot(notJson)).rejects.toThrow(/is not valid JSON/);
    const other = join(dir, 'y.json');
    await writeFile(other, '{"version": 2}');
    await expect(loadSnapshot(other)).rejects.toThrow(/not a mailroom sandbox data file/);
  });

  test('a data file whose records are damaged is refused, not half loaded', async () => {
    const good = SandboxState.fresh('sk_live_damaged').snapshot();
    const file = join(dir, 'state.json');
    await writeFile(file, JSON.stringify(good));
    expect(await loadSnapshot(file)).toEqual(good);
    const damaged = [
      { ...good, keys: [null] },
      { ...good, keys: [{ ...good.keys[0], secretKey: 5 }] },
      { ...good, emails: [{ id: 'trs_x' }] },
      { ...good, webhooks: [{ id: 'wh_x', url: 'http://x.test', events: 'CONTACT_CREATED', token: 'wht_x', createdAt: 'now' }] },
      { ...good, idempotency: [['k', null]] },
    ];
    for (const snap of damaged) {
      await writeFile(file, JSON.stringify(snap));
      await expect(loadSnapshot(file)).rejects.toThrow(/not a mailroom sandbox data file/);
    }
  });
});

describe('data files written by earlier versions', () => {
  // A sandbox of 2026-11-26 (the JSON-lines journal, one workspace) wrote these: a snapshot after a
  // SIGTERM, then a journal of the changes since, cut by a SIGKILL.
  const fixture = new URL('../fixtures/sandbox-data-v1/', import.meta.url);
  const copyFixture = async (): Promise<string> => {
    for (const name of ['state.json', 'state.json.journal-3']) await writeFile(join(dir, name), await readFile(new URL(name, fixture)));
    return join(dir, 'state.json');
  };
  const expectFixtureState = (state: SandboxState) => {
    expect(state.workspace).toEqual({ id: 'wrk_kxSNqZNj28Otr05tbXDh', name: 'Sandbox workspace' });
    expect(state.primaryKeyId).toBe('aki_9M0KoW7DdoEfTJzzOszC');
    expect(state.emails.map((e) => [e.id, e.status, e.type, e.idempotencyKey])).toEqual([
      ['trs_pGNIiG2Em0GW3ZsTS259', 'SENT', 'raw', 'order-1'],
      ['trs_X127wWKY87nP41dLe43W', 'SENT', 'raw', undefined],
      ['trs_vHXkI8mAFE0sUytsYd22', 'SENT', 'raw', 'order-3'],
      ['trs_Q2LduVKqg5zfuw47XMz3', 'SENT', 'templated', undefined],
      ['trs_DnumPGzdgUX2ZrQLoIbL', 'SENT', 'raw', undefined],
      ['trs_8VDrV6sCvsuyIRfM9jhr', 'SCHEDULED', 'raw', 'order-4'],
      ['trs_RhW9CM1Ybw7u3yLWslWq', 'SENT', 'raw', 'order-6'],
    ]);
    const first = state.emailsById.get('trs_pGNIiG2Em0GW3ZsTS259')!;
    expect(first).toMatchObject({ from: 'Shop <shop@example.com>', subject: 'Order 1', html: '<h1>Hi</h1><p>Order <b>#1</b></p>', text: 'Order 1 text', settings: { trackClicks: true, trackOpens: false } });
    expect(withText(state.emailsById.get('trs_RhW9CM1Ybw7u3yLWslWq')!)).toBe('HI\n\nOrder #6');
    expect(state.emailsById.get('trs_8VDrV6sCvsuyIRfM9jhr')!.sendAt).toMatch(/^2026-11-26T08:08:/);
    expect([...state.keys.values()].map((k) => [k.id, k.displayName, k.role])).toEqual([
      ['aki_A2HevezgMbpb7wCSUVyN', 'Sandbox key', 'API_USER'],
      ['aki_75qKVSYilBHjYu96SWeF', 'ci renamed', 'VIEWER'],
      ['aki_9M0KoW7DdoEfTJzzOszC', 'Sandbox key', 'API_USER'],
    ]);
    expect(state.keysBySecret.get('sk_live_fixtureKey0002')?.id).toBe('aki_9M0KoW7DdoEfTJzzOszC');
    expect([...state.webhooks.values()].map((h) => [h.id, h.events])).toEqual([['wh_lnQZLn2O1qigv6PIwfY6', ['CONTACT_CREATED', 'CONTACT_UPDATED', 'CONTACT_UNSUBSCRIBED']]]);
    expect([...state.contacts.values()].map((c) => [c.email, c.properties])).toEqual([
      ['ada1@customer.test', { status: 'SUBSCRIBED' }],
      ['ada2@customer.test', { status: 'UNSUBSCRIBED' }],
      ['ada3@customer.test', { status: 'SUBSCRIBED', plan: 'pro' }],
      ['ada7@customer.test', { status: 'SUBSCRIBED' }],
      ['ada4@customer.test', { status: 'SUBSCRIBED' }],
      ['ada5@customer.test', { status: 'SUBSCRIBED' }],
      ['ada6@customer.test', { status: 'SUBSCRIBED' }],
    ]);
    expect(state.deliveries.map((d) => d.event)).toEqual(['CONTACT_CREATED', 'CONTACT_CREATED', 'CONTACT_CREATED', 'CONTACT_CREATED', 'CONTACT_CREATED', 'CONTACT_CREATED', 'CONTACT_UNSUBSCRIBED', 'CONTACT_CREATED']);
    expect([...state.idempotency].map(([k, r]) => [k, r.id])).toEqual([
      ['order-1', 'trs_pGNIiG2Em0GW3ZsTS259'],
      ['order-3', 'trs_vHXkI8mAFE0sUytsYd22'],
      ['order-4', 'trs_8VDrV6sCvsuyIRfM9jhr'],
      ['order-6', 'trs_RhW9CM1Ybw7u3yLWslWq'],
    ]);
    expect(state.idempotency.get('order-6')).toEqual({ id: 'trs_RhW9CM1Ybw7u3yLWslWq', messageId: state.emailsById.get('trs_RhW9CM1Ybw7u3yLWslWq')!.messageId, status: 'SENT', to: 'ada6@customer.test', type: 'raw', from: 'Shop <shop@example.com>', subject: 'Order 6' });
    expect(state.sentThisMonth).toEqual({ month: '2026-11', count: 8 });
    expect(state.tally).toEqual({ SENT: { raw: 5, templated: 1 }, SCHEDULED: { raw: 1, templated: 0 } });
    expect(state.deliveryTotal).toBe(8);
  };

  test('a snapshot and a journal of the JSON-lines format load whole; what follows is saved in the current format and reads back the same', async () => {
    const file = await copyFixture();
    const p = await started(file, () => SandboxState.fresh(undefined), noError);
    expectFixtureState(p.current);
    const before = observable(p.current);
    p.current.acceptEmail(sampleEmail('trs_new', { idempotencyKey: 'order-8' }), { id: 'trs_new', messageId: 'm-trs_new', status: 'SENT', to: 'trs_new@x.test', type: 'raw' }, new Date());
    await p.durable();
    const again = await Persistence.open(file, () => SandboxState.fresh(undefined), noError);
    // The text read above was generated in memory only: generate it on both sides.
    for (const state of [again.current, p.current]) for (const email of state.emails) withText(email);
    expect(observable(again.current)).toEqual(observable(p.current));
    expect(observable(again.current)).not.toEqual(before);
  });
});
