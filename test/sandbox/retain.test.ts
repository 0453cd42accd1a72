import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { Persistence } from '../../src/sandbox/persistence.js';
import { DEFAULT_RETAIN, SandboxState, type InboxEmail } from '../../src/sandbox/state.js';
import { deliveriesPage } from '../../src/sandbox/inbox.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

const raw = (n: number, over: Record<string, unknown> = {}) => ({ from: 'ops@example.com', to: `user${n}@customer.test`, subject: `Order ${n}`, html: `<p>Order ${n}</p>`, ...over });
const hours = (n: number) => new Date(Date.now() + n * 3_600_000).toISOString();

describe('retain: the sandbox keeps the newest N emails, deliveries, contacts and idempotency keys; the counts cover all', () => {
  let sb: TestSandbox;
  let call: ReturnType<typeof client>;
  beforeAll(async () => {
    sb = await withSandbox({ config: { retain: 3, templates: { note: { from: 'ops@example.com', subject: 'Note', html: '<p>n</p>' } } } });
    call = client(sb);
  });
  afterAll(() => sb.close());
  beforeEach(() => sb.reset());

  test('past N emails the oldest go; GET /_sandbox/emails totals, its status and kind filters and the inbox count every email', async () => {
    const res = await call('POST', '/v1/emails/batch', {
      emails: [raw(1), raw(2, { sendAt: hours(2) }), { template: 'note', to: 'user3@customer.test' }, raw(4), raw(5, { sendAt: hours(3) })],
    });
    expect(res.status).toBe(200);
    expect((await sb.emails()).map((e) => e.to)).toEqual(['user3@customer.test', 'user4@customer.test', 'user5@customer.test']);
    expect((await call('GET', '/_sandbox/emails?limit=0')).body).toEqual({ items: [], total: 5 });
    expect((await call('GET', '/_sandbox/emails?limit=2')).body.total).toBe(5);
    expect((await call('GET', '/_sandbox/emails?status=SCHEDULED&limit=0')).body.total).toBe(2);
    expect((await call('GET', '/_sandbox/emails?status=SENT&kind=raw&limit=0')).body.total).toBe(2);
    expect((await call('GET', '/_sandbox/emails?kind=template&limit=0')).body.total).toBe(1);
    // A search reads the emails themselves: it covers the ones kept.
    expect((await call('GET', '/_sandbox/emails?q=user1@&limit=0')).body.total).toBe(0);
    expect((await call('GET', '/_sandbox/emails?to=user4@')).body.total).toBe(1);

    const page = await fetch(`${sb.baseUrl}/`).then((r) => r.text());
    expect(page).toContain('<b data-count="emails">5</b> emails');
    expect(page).toContain('2 scheduled');
  });

  test('an idempotency key among the newest N still answers its first result', async () => {
    const first = await call('POST', '/v1/emails', raw(1, { idempotencyKey: 'k-1' }));
    for (let n = 2; n <= 3; n++) await call('POST', '/v1/emails', raw(n, { idempotencyKey: `k-${n}` }));
    const again = await call('POST', '/v1/emails', raw(9, { idempotencyKey: 'k-1' }));
    expect(again.body).toEqual(first.body);
    expect((await call('GET', '/_sandbox/emails?limit=0')).body.total).toBe(3);
  });
});

function email(id: string, status: InboxEmail['status'] = 'SENT'): InboxEmail {
  return { id, messageId: `m-${id}`, status, type: 'raw', to: `${id}@x.test`, html: '<p>h</p>', text: 'h', settings: { trackClicks: true, trackOpens: false }, createdAt: new Date().toISOString(), ...(status === 'SCHEDULED' ? { sendAt: hours(1) } : {}) };
}

const result = (e: InboxEmail) => ({ id: e.id, messageId: e.messageId, status: e.status, to: e.to, type: e.type });

describe('SandboxState retain', () => {
  test('the default is documented as 10,000', () => {
    expect(DEFAULT_RETAIN).toBe(10_000);
    expect(SandboxState.fresh(undefined).retain).toBe(10_000);
  });

  test('emails, contacts, deliveries and idempotency keys stay at N; the counts do not', () => {
    const state = SandboxState.fresh(undefined, 2);
    for (let i = 0; i < 5; i++) {
      const e = { ...email(`trs_${i}`), idempotencyKey: `k${i}` };
      state.acceptEmail(e, result(e), new Date());
      state.saveContact({ id: `cnt_${i}`, email: `c${i}@x.test`, properties: {}, createdAt: e.createdAt, updatedAt: e.createdAt });
      state.addDelivery({ webhookId: 'wh_1', event: 'CONTACT_CREATED', url: 'http://127.0.0.1:9/h', attempt: 1, durationMs: 1, createdAt: e.createdAt });
    }
    expect(state.emails.map((e) => e.id)).toEqual(['trs_3', 'trs_4']);
    expect([...state.emailsById.keys()]).toEqual(['trs_3', 'trs_4']);
    expect([...state.contacts.keys()]).toEqual(['c3@x.test', 'c4@x.test']);
    expect([...state.idempotency.keys()]).toEqual(['k3', 'k4']);
    expect(state.deliveries).toHaveLength(2);
    expect(state.emailTotal).toBe(5);
    expect(state.deliveryTotal).toBe(5);
    expect(state.sentIn(new Date())).toBe(5);
  });

  test('past N contacts the one created longest ago goes, changed or not; one deleted and made again counts from then', () => {
    const state = SandboxState.fresh(undefined, 2);
    const now = new Date().toISOString();
    const contact = (i: number) => ({ id: `cnt_${i}`, email: `c${i}@x.test`, properties: {}, createdAt: now, updatedAt: now });
    const first = contact(1);
    state.saveContact(first);
    state.saveContact(contact(2));
    first.properties = { plan: 'pro' };
    state.saveContact(first);
    state.saveContact(contact(3));
    expect([...state.contacts.keys()]).toEqual(['c2@x.test', 'c3@x.test']);
    state.deleteContact(state.contacts.get('c2@x.test')!);
    state.saveContact(contact(2));
    state.saveContact(contact(4));
    expect([...state.contacts.keys()].sort()).toEqual(['c2@x.test', 'c4@x.test']);
  });

  test('a scheduled email no longer kept still moves from scheduled to sent when due; a deleted one does not count', () => {
    const state = SandboxState.fresh(undefined, 1);
    const dropped = email('trs_a', 'SCHEDULED');
    const deleted = email('trs_b', 'SCHEDULED');
    state.acceptEmail(dropped, result(dropped), new Date());
    state.acceptEmail(deleted, result(deleted), new Date());
    expect(state.emails.map((e) => e.id)).toEqual(['trs_b']);
    state.deleteEmail('trs_b');
    expect(state.tally.SCHEDULED.raw).toBe(1);
    state.markSent(dropped);
    state.markSent(deleted);
    expect(state.tally).toEqual({ SENT: { raw: 1, templated: 0 }, SCHEDULED: { raw: 0, templated: 0 } });
    expect(state.emailTotal).toBe(1);
  });

  test('--data: a restart, from the journal or from a snapshot, keeps the same counts and the same newest N', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-retain-'));
    try {
      const file = join(dir, 'state.json');
      const fresh = () => SandboxState.fresh('sk_live_retain_test', 2);
      const noError = (err: Error) => {
        throw err;
      };
      const p = await Persistence.open(file, fresh, noError, undefined, 2);
      await p.start();
      const state = p.current;
      state.onChange = (change) => p.record(change);
      const later = email('trs_0', 'SCHEDULED');
      state.acceptEmail(later, result(later), new Date());
      for (let i = 1; i < 4; i++) state.acceptEmail(email(`trs_${i}`), result(email(`trs_${i}`)), new Date());
      state.markSent(later);
      const expected = { ids: ['trs_2', 'trs_3'], total: 4, tally: { SENT: { raw: 4, templated: 0 }, SCHEDULED: { raw: 0, templated: 0 } } };
      const seen = (s: SandboxState) => ({ ids: s.emails.map((e) => e.id), total: s.emailTotal, tally: s.tally });
      expect(seen(state)).toEqual(expected);
      await p.durable();
      expect(seen((await Persistence.open(file, fresh, noError, undefined, 2)).current)).toEqual(expected);
      await p.close();
      expect(seen((await Persistence.open(file, fresh, noError, undefined, 2)).current)).toEqual(expected);
      // A larger retain later keeps what is there; the counts stay.
      expect(seen((await Persistence.open(file, fresh, noError, undefined, 10)).current)).toEqual(expected);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the deliveries page past retain', () => {
  const at = '2026-11-26T08:00:00.000Z';
  const base = { webhookId: 'wh_1', event: 'CONTACT_CREATED', attempt: 1, durationMs: 0, createdAt: at, error: 'not delivered' };
  const dropped = { ...base, url: 'http://127.0.0.1:9/h', notDelivered: 'dropped: the delivery queue is full (5 waiting for a turn or a retry, deliveries.maxQueued)' };
  const offMachine = { ...base, url: 'https://example.com/h', notDelivered: 'example.com is not on this machine' };

  test('each figure counts the attempts kept; the dropped total since the reset is said beside them', () => {
    const state = SandboxState.fresh(undefined, 3);
    for (let i = 0; i < 5; i++) state.addDroppedDelivery({ ...dropped });
    // The five dropped attempts go as three newer ones come: those three are what the page lists.
    for (let i = 0; i < 2; i++) state.addDelivery({ ...offMachine });
    state.addDelivery({ ...base, url: 'http://127.0.0.1:9/h', error: undefined, statusCode: 200 });
    const page = deliveriesPage(state, undefined, Date.parse(at));
    expect(page).toContain('<span><b>3</b> attempts kept (the newest of 8)</span><span>1 delivered</span><span>0 failed</span><span>2 not delivered (off this machine)</span>');
    expect(page).toContain('<span>0 dropped: the delivery queue was full (5 since the last reset)</span>');
  });
});
