import { describe, expect, it } from 'vitest';
import { fakeContext } from '../helpers/context.js';
import { slowReader } from '../helpers/slow-reader.js';
import { run } from '../../src/run.js';
import { resetSecrets } from '../../src/secrets.js';
import { journalLines, post, tempJournal, token } from '../webhook/helpers/durable-deliveries.js';

/** A delivery whose printed JSON line is about 8 KB (its data is printed): a few dozen fill the bound. */
const delivery = (i: number) => JSON.stringify({ event: 'CONTACT_CREATED', createdAt: new Date().toISOString(), data: { contact: { id: `ctc_${i}`, email: `p${i}@example.com`, note: 'x'.repeat(8_000) } } });

// webhooks listen printing into a pipe whose reader does not read (`| less` left on its first
// page, a stuck `| jq`): the printed lines must not pile up in memory without limit. Past a bound,
// deliveries are answered 503 with Retry-After, as when the forward queue is full: the service
// retries them, nothing is lost, and memory stays flat.
describe('webhooks listen into a stdout nobody reads', () => {
  it('past 256 KiB waiting on stdout, deliveries get 503 and are not printed; once read, 200 again', async () => {
    resetSecrets();
    const journal = tempJournal();
    const controller = new AbortController();
    const fake = fakeContext({ env: { MAILROOM_WEBHOOK_TOKEN: token }, signal: controller.signal });
    const reader = slowReader();
    fake.ctx.io.out = reader.out;
    const done = run(['webhooks', 'listen', '--port', '0', '--json', '--journal', journal], fake.ctx);
    for (let i = 0; i < 500 && !reader.text().includes('"ready"'); i++) await new Promise((r) => setTimeout(r, 10));
    const { url } = JSON.parse(reader.text().split('\n')[0]!) as { url: string };

    let refused: Awaited<ReturnType<typeof post>> | undefined;
    let sent = 0;
    while (!refused && sent < 200) {
      const answer = await post(url, delivery(sent++));
      if (answer.status !== 200) refused = answer;
    }
    expect(refused?.status).toBe(503);
    expect(refused?.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused?.body.message).toBe('stdout is not being read (the lines printed so far wait for their reader); retry later');
    // More come: all refused, nothing more printed, the bytes waiting stay where they were.
    const waitingThen = reader.out.writableLength;
    for (let i = 0; i < 50; i++) expect((await post(url, delivery(sent++))).status).toBe(503);
    expect(reader.out.writableLength).toBe(waitingThen);
    expect(reader.peak).toBeLessThan(256 * 1024 + 16 * 1024);
    expect(fake.stderr()).toContain('mailroom: warning: stdout is not being read: deliveries are answered 503 (the service retries them) until it is\n');
    // Refused, journalled as refused (replay leaves them to the service's retry).
    expect(journalLines(journal).filter((l) => l.status === 503).length).toBe(51);

    reader.open();
    await new Promise((r) => setImmediate(r));
    expect((await post(url, delivery(sent++))).status).toBe(200);
    controller.abort();
    expect(await done).toBe(130);
  });
});
