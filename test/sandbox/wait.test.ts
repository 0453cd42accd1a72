import { afterEach, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/library.js';

const open: Sandbox[] = [];
afterEach(async () => {
  for (const sb of open.splice(0)) await sb.close();
});

async function sandbox(): Promise<Sandbox> {
  const sb = await startSandbox({ log: () => undefined });
  open.push(sb);
  return sb;
}

async function send(sb: Sandbox, body: Record<string, unknown>) {
  const res = await fetch(`${sb.baseUrl}/v1/emails`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sb.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ from: 'shop@example.com', html: '<p>Hi</p>', ...body }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { email: { id: string } }).email.id;
}

/** Settles to 'pending' unless `promise` settled before the event loop turned a few times. */
async function stateOf(promise: Promise<unknown>): Promise<'resolved' | 'rejected' | 'pending'> {
  let state: 'resolved' | 'rejected' | 'pending' = 'pending';
  promise.then(
    () => (state = 'resolved'),
    () => (state = 'rejected'),
  );
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return state;
}

describe('waitForEmail and waitForEmails', () => {
  test('resolves to the email once it is caught, not before; others are ignored', async () => {
    const sb = await sandbox();
    const waiting = sb.waitForEmail({ to: 'Ada@Customer.test', subject: 'reset' });
    await send(sb, { to: 'bob@customer.test', subject: 'Reset your password' });
    await send(sb, { to: 'ada@customer.test', subject: 'Welcome' });
    // An address that merely contains the one waited for is another recipient.
    await send(sb, { to: 'nada@customer.test', subject: 'Reset your password' });
    expect(await stateOf(waiting)).toBe('pending');
    const id = await send(sb, { to: 'ada@customer.test', subject: 'Reset your password' });
    const email = await waiting;
    expect(email).toMatchObject({ id, to: 'ada@customer.test', subject: 'Reset your password', html: '<p>Hi</p>', text: 'Hi' });
  });

  test('an email caught before the call counts (send first, wait after)', async () => {
    const sb = await sandbox();
    const id = await send(sb, { to: 'ada@customer.test', subject: 'Your receipt' });
    expect((await sb.waitForEmail({ to: 'ada@customer.test', timeoutMs: 0 })).id).toBe(id);
    expect((await sb.waitForEmail()).id).toBe(id);
  });

  test('waitForEmails(n) resolves to the first n matching, oldest first, once the n-th is caught', async () => {
    const sb = await sandbox();
    const first = await send(sb, { to: 'a@customer.test', subject: 'Order 1 shipped' });
    const waiting = sb.waitForEmails(3, { subject: 'shipped' });
    const second = await send(sb, { to: 'b@customer.test', subject: 'Order 2 shipped' });
    await send(sb, { to: 'c@customer.test', subject: 'Newsletter' });
    expect(await stateOf(waiting)).toBe('pending');
    const third = await send(sb, { to: 'c@customer.test', subject: 'Order 3 SHIPPED' });
    await send(sb, { to: 'd@customer.test', subject: 'Order 4 shipped' });
    expect((await waiting).map((e) => e.id)).toEqual([first, second, third]);
  });

  test('rejects after timeoutMs naming what it waited for and how many matched', async () => {
    const sb = await sandbox();
    await send(sb, { to: 'ada@customer.test', subject: 'Welcome' });
    await expect(sb.waitForEmail({ to: 'bob@customer.test', timeoutMs: 50 })).rejects.toThrow(
      'mailroom sandbox: no email to bob@customer.test was caught within 50 ms (0 matching caught)',
    );
    await expect(sb.waitForEmails(2, { subject: 'welcome', timeoutMs: 50 })).rejects.toThrow(
      'mailroom sandbox: fewer than 2 emails with a subject containing "welcome" were caught within 50 ms (1 matching caught)',
    );
    await expect(sb.waitForEmails(0)).rejects.toThrow('waitForEmails wants a whole number of emails of at least 1, not 0');
    await expect(sb.waitForEmail({ timeoutMs: -1 })).rejects.toThrow('timeoutMs must be a whole number of milliseconds, not -1');
    // An empty filter (an unset variable) would match any email: refused, not taken as no filter.
    await expect(sb.waitForEmail({ to: '', timeoutMs: 50 })).rejects.toThrow('mailroom sandbox: to is empty: give the address to wait for, or leave it out');
    await expect(sb.waitForEmail({ subject: ' ', timeoutMs: 50 })).rejects.toThrow('mailroom sandbox: subject is empty: give the text to wait for, or leave it out');
  });

  test('after reset() the emails caught before it no longer count', async () => {
    const sb = await sandbox();
    await send(sb, { to: 'ada@customer.test', subject: 'one' });
    const waiting = sb.waitForEmails(2, { to: 'ada@customer.test' });
    await sb.reset();
    const again = await send(sb, { to: 'ada@customer.test', subject: 'two' });
    expect(await stateOf(waiting)).toBe('pending');
    const last = await send(sb, { to: 'ada@customer.test', subject: 'three' });
    expect((await waiting).map((e) => e.id)).toEqual([again, last]);
  });

  test('close() ends a wait still pending, which rejects; nothing keeps the process alive', async () => {
    const sb = await startSandbox({ log: () => undefined });
    const waiting = sb.waitForEmail({ timeoutMs: 600_000 }).catch((err: unknown) => err);
    await sb.close();
    expect(await waiting).toEqual(new Error('mailroom sandbox: the sandbox closed while waiting: no email was caught (0 matching caught)'));
  });
});

describe('GET /_sandbox/emails/wait (the long poll, over HTTP)', () => {
  test('answers once the email is caught, with the email and timedOut false', async () => {
    const sb = await sandbox();
    const answer = fetch(`${sb.baseUrl}/_sandbox/emails/wait?to=ada%40customer.test&subject=code&timeoutMs=30000`);
    expect(await stateOf(answer)).toBe('pending');
    const id = await send(sb, { to: 'ada@customer.test', subject: 'Your code' });
    const res = await answer;
    expect(res.status).toBe(200);
    const body = (await res.json()) as { items: { id: string; text: string }[]; timedOut: boolean };
    expect(body.timedOut).toBe(false);
    expect(body.items.map((e) => [e.id, e.text])).toEqual([[id, 'Hi']]);
  });

  test('answers at timeoutMs with timedOut true and what matched so far', async () => {
    const sb = await sandbox();
    const id = await send(sb, { to: 'ada@customer.test', subject: 'one' });
    const res = await fetch(`${sb.baseUrl}/_sandbox/emails/wait?to=ada%40customer.test&count=2&timeoutMs=30`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { items: { id: string }[]; timedOut: boolean };
    expect(body).toMatchObject({ timedOut: true });
    expect(body.items.map((e) => e.id)).toEqual([id]);
  });

  test.each([
    ['count=0', 'Invalid request: count must be a whole number from 1 to 10000'],
    ['count=two', 'Invalid request: count must be a whole number from 1 to 10000'],
    ['timeoutMs=600001', 'Invalid request: timeoutMs must be a whole number from 0 to 600000'],
    ['timeoutMs=-5', 'Invalid request: timeoutMs must be a whole number from 0 to 600000'],
  ])('%s is a 400 saying what is allowed', async (query, message) => {
    const sb = await sandbox();
    const res = await fetch(`${sb.baseUrl}/_sandbox/emails/wait?${query}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe(message);
  });

  test('a caller that hangs up stops its wait: the sandbox closes at once afterwards', async () => {
    const sb = await startSandbox({ log: () => undefined });
    const gone = new AbortController();
    const answer = fetch(`${sb.baseUrl}/_sandbox/emails/wait?timeoutMs=600000`, { signal: gone.signal });
    expect(await stateOf(answer)).toBe('pending');
    gone.abort();
    await expect(answer).rejects.toThrow();
    const started = Date.now();
    await sb.close();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('waitForEmails beyond what the sandbox keeps', () => {
  test('a count over retain is refused at once (RangeError naming both), in-process and over HTTP', async () => {
    const sb = await startSandbox({ log: () => undefined, config: { retain: 2 } });
    open.push(sb);
    const { connectSandbox } = await import('../../src/sandbox/library.js');
    for (const target of [sb, connectSandbox(sb.baseUrl)]) {
      const started = Date.now();
      const err = await target.waitForEmails(3, { timeoutMs: 20_000 }).catch((e: unknown) => e);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(err).toBeInstanceOf(RangeError);
      expect((err as Error).message).toBe('mailroom sandbox: waitForEmails(3): the sandbox keeps only the newest 2 emails (retain): a wait for more could never see them all');
    }
    await send(sb, { to: 'a@example.com', subject: 'one' });
    await send(sb, { to: 'a@example.com', subject: 'two' });
    expect((await sb.waitForEmails(2)).map((e) => e.subject)).toEqual(['one', 'two']);
  });
});

describe('waitForDeliveries beyond what the sandbox keeps', () => {
  test('a count over retain is refused at once (RangeError naming both): the sandbox, a workspace, a connection', async () => {
    const sb = await startSandbox({ log: () => undefined, config: { retain: 2 } });
    open.push(sb);
    const { connectSandbox } = await import('../../src/sandbox/library.js');
    const workspace = await sb.workspace();
    for (const target of [sb, workspace, connectSandbox(sb.baseUrl)]) {
      const started = Date.now();
      const err = await target.waitForDeliveries(3, { timeoutMs: 20_000 }).catch((e: unknown) => e);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(err).toBeInstanceOf(RangeError);
      expect((err as Error).message).toBe('mailroom sandbox: waitForDeliveries(3): the sandbox keeps only the newest 2 delivery attempts (retain): a wait for more could never see them all');
    }
    // At the limit, the wait works as before.
    const err = await sb.waitForDeliveries(2, { timeoutMs: 50 }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('mailroom sandbox: 2 deliveries were not recorded within 50 ms');
  });
});

describe('the counts in what a wait rejects with', () => {
  test('carry thousands separators and the right plural, as every count mailroom prints', async () => {
    const sb = await startSandbox({ log: () => undefined, config: { retain: 2_000 } });
    open.push(sb);
    const message = (p: Promise<unknown>) => p.then(() => 'resolved', (e: unknown) => (e as Error).message);
    expect(await message(sb.waitForEmails(2_500))).toBe('mailroom sandbox: waitForEmails(2500): the sandbox keeps only the newest 2,000 emails (retain): a wait for more could never see them all');
    expect(await message(sb.waitForEmails(1_500, { timeoutMs: 50 }))).toBe('mailroom sandbox: fewer than 1,500 emails were caught within 50 ms (0 matching caught)');
    expect(await message(sb.waitForDeliveries(2_500))).toBe('mailroom sandbox: waitForDeliveries(2500): the sandbox keeps only the newest 2,000 delivery attempts (retain): a wait for more could never see them all');
    expect(await message(sb.waitForDeliveries(1_500, { timeoutMs: 50 }))).toBe('mailroom sandbox: 1,500 deliveries were not recorded within 50 ms');
    expect(await message(sb.waitForDeliveries(1, { timeoutMs: 50 }))).toBe('mailroom sandbox: 1 delivery was not recorded within 50 ms');
  });
});
