import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/library.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ log: () => undefined });
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

async function send(body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${sb.baseUrl}/v1/emails`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sb.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ from: 'Shop <shop@example.com>', to: 'ada@customer.test', subject: 'Reset your password', ...body }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

const RESET_HTML = `<html><head><title>Code 111111</title><style>.x{width:123456px}</style></head><body>
<p>Hello Ada,</p>
<p>Your code is <b>493021</b>. Or use <a href="https://app.test/reset?token=tok_Abc123&amp;utm_source=email" class="btn">
  Reset   your password</a>.</p>
<p>Order #12345 of 2026-11-26 at 12:30, total $1234.50, ref 10,000; invite code A7K9QZ.</p>
<a href="https://app.test/help"><img src="https://cdn.test/help.png" alt="Help centre"></a>
<a href="mailto:help@example.com">help@example.com</a>
<map><area href="https://app.test/map" alt="Map"></map>
<p>&copy; 2026 Shop Inc.</p>
</body></html>`;

describe('a caught email: links(), codes(), headers', () => {
  test('links(): every href as written (entities decoded, nothing rewritten for tracking) with its text, in order', async () => {
    await send({ html: RESET_HTML });
    const email = await sb.waitForEmail({ to: 'ada@customer.test' });
    expect(email.links()).toEqual([
      { href: 'https://app.test/reset?token=tok_Abc123&utm_source=email', text: 'Reset your password' },
      { href: 'https://app.test/help', text: 'Help centre' },
      { href: 'mailto:help@example.com', text: 'help@example.com' },
      { href: 'https://app.test/map', text: 'Map' },
    ]);
    // The first link can be followed as a test would click it.
    expect(new URL(email.links()[0]!.href).searchParams.get('token')).toBe('tok_Abc123');
  });

  test('codes(): the one-time codes of the visible text, then link tokens; no year, price, date, time, order number, CSS or title', async () => {
    await send({ html: RESET_HTML });
    const email = await sb.waitForEmail();
    expect(email.codes()).toEqual(['493021', 'A7K9QZ', 'tok_Abc123']);
  });

  test('codes() reads the text part the app sent as well as the HTML, and tokens in its URLs', async () => {
    await send({ html: '<p>Confirm your address</p>', text: 'Confirm: https://app.test/confirm#confirmation_token=ct_9f8e7d\nor enter 8812 34' });
    const email = await sb.waitForEmail();
    expect(email.codes()).toEqual(['8812', 'ct_9f8e7d']);
  });

  test('codes(pattern): the matches of your own pattern, its first group when it has one', async () => {
    await send({ html: '<p>PIN: 12-34-56</p><p>Backup: BK-77</p>' });
    const email = await sb.waitForEmail();
    expect(email.codes(/PIN: ([\d-]+)/)).toEqual(['12-34-56']);
    expect(email.codes(/BK-\d+/)).toEqual(['BK-77']);
  });

  test('text and html as sent; headers as the email would carry them', async () => {
    await send({ html: RESET_HTML, replyTo: 'support@example.com' });
    const email = await sb.waitForEmail();
    expect(email.html).toBe(RESET_HTML);
    expect(email.text).toContain('Your code is 493021.');
    expect(email.headers).toEqual({
      from: 'Shop <shop@example.com>',
      to: 'ada@customer.test',
      subject: 'Reset your password',
      'reply-to': 'support@example.com',
      'message-id': `<${email.messageId}>`,
      date: new Date(email.createdAt).toUTCString(),
    });
  });

  test('the helpers are not data: JSON, a spread copy and toEqual see only the stored fields', async () => {
    await send({ html: '<a href="https://app.test/x">x</a>' });
    const [fromList] = await sb.emails();
    const waited = await sb.waitForEmail();
    expect(Object.keys(waited)).not.toContain('links');
    expect(JSON.parse(JSON.stringify(waited))).toEqual({ ...waited });
    expect(waited).toEqual(fromList);
    expect(fromList!.links()).toEqual([{ href: 'https://app.test/x', text: 'x' }]);
  });
});
