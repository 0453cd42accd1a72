import type { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LiveFeed } from '../../src/sandbox/live.js';

/** An inbox page's event stream whose browser does not read (a tab asleep): writes wait until `read()`. */
function stuckPage() {
  const held: Array<() => void> = [];
  let reading = false;
  let text = '';
  const res = new Writable({
    highWaterMark: 64,
    write(chunk: Buffer, _enc, callback) {
      text += chunk.toString();
      if (reading) callback();
      else held.push(callback);
    },
  }) as Writable & { writeHead: () => unknown };
  res.writeHead = () => res;
  return {
    res: res as unknown as ServerResponse,
    text: () => text,
    waiting: () => res.writableLength,
    read() {
      reading = true;
      for (const callback of held.splice(0)) callback();
    },
  };
}

const tick = () => new Promise((r) => setTimeout(r, 120));

describe('the inbox live feed to a page that does not read', () => {
  it('holds at most one message for it, and sends the latest state once it reads', async () => {
    let emails = 0;
    const feed = new LiveFeed(() => ({ emails, scheduled: 0, deliveries: 0 }));
    const page = stuckPage();
    // The first message fills what the stream takes before it waits.
    feed.attach(page.res, {});
    const before = page.waiting();
    for (let i = 0; i < 4; i++) {
      emails += 1;
      feed.changed();
      await tick();
    }
    // Each message holds the whole state: those the page missed are not kept, only the need to send the next.
    expect(page.waiting()).toBe(before);
    page.read();
    await new Promise((r) => setImmediate(r));
    const last = page.text().trimEnd().split('\n\n').at(-1)!;
    expect(last).toBe(`event: change\ndata: ${JSON.stringify({ version: 4, emails: 4, scheduled: 0, deliveries: 0 })}`);
    feed.close();
  });
});
