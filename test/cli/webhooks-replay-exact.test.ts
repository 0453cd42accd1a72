import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess, startInProcess, type InProcessCommand } from '../helpers/context.js';
import { startApp } from '../webhook/helpers/test-app.js';
import { journalLines, post, sign, tempJournal, token } from '../webhook/helpers/durable-deliveries.js';

// The command `webhooks listen` prints at stop, and the one `webhooks replay` prints after Ctrl-C,
// must re-send exactly what the app did not get: named by journal line, not by arrival time. A
// delivery whose body is slow (A: headers first, B whole, then A's last bytes) is journalled after
// B although its time is earlier, so any cut by time repeats B or drops A.

const running: InProcessCommand[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((l) => l.stop()));
  for (const close of closers.splice(0)) await close();
});

const envelope = (name: string, event = 'CONTACT_CREATED') => JSON.stringify({ event, createdAt: new Date().toISOString(), data: { contact: { email: `${name}@example.com` } } });

async function listen(args: string[]): Promise<{ run: InProcessCommand; url: string }> {
  const run = startInProcess(['webhooks', 'listen', '--port', '0', '--json', ...args], { env: { MAILROOM_WEBHOOK_TOKEN: token } });
  running.push(run);
  const url = (JSON.parse(await run.waitForLine((l) => l.includes('"ready"'), 15_000)) as { url: string }).url;
  return { run, url };
}

/** A delivery sent in two parts: headers and all but the last byte now, the rest on `finish()`; resolves with the status. */
function slowDelivery(url: string, body: string): { finish(): Promise<number> } {
  const { port } = new URL(url);
  const socket: Socket = connect(Number(port), '127.0.0.1');
  const head = `POST /in HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nx-smashsend-signature: ${sign(body)}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`;
  socket.write(head + body.slice(0, -1));
  let answer = '';
  socket.on('data', (d: Buffer) => (answer += d.toString()));
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return {
    async finish() {
      socket.write(body.slice(-1));
      await ended;
      return Number(/^HTTP\/1\.1 (\d+)/.exec(answer)?.[1]);
    },
  };
}

/** An app that answers the first `answered` requests 200 and holds every later one unanswered. */
async function appAnsweringFirst(answered: number): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push(body);
      if (bodies.length <= answered) res.end('ok');
      else held.push(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  closers.push(close);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies, close };
}

/** The printed `mailroom webhooks replay …` run in-process against another app. */
async function runPrinted(command: string, appUrl: string, forwardTo: string) {
  const args = command.replace(/^mailroom /, '').replace(forwardTo, appUrl).split(' ');
  return runInProcess(args, { env: { MAILROOM_WEBHOOK_TOKEN: token } });
}

const printedReplay = (stderr: string) => /^ {2}to forward them: (mailroom webhooks replay .*)$/m.exec(stderr)?.[1];

async function goodApp() {
  const app = await startApp(token);
  closers.push(() => app.close());
  return app;
}

describe('webhooks listen: the replay command at stop names exactly what the app did not get', () => {
  it('A headers first, B whole, A finishes; the app hangs: both named (A was dropped by --since)', async () => {
    const hanging = await appAnsweringFirst(0);
    const journal = tempJournal();
    const l = await listen(['--journal', journal, '--forward-to', hanging.url, '--stop-timeout', '500']);
    const [a, b] = [envelope('a'), envelope('b')];
    const slowA = slowDelivery(l.url, a);
    await new Promise((r) => setTimeout(r, 20));
    expect((await post(l.url, b)).status).toBe(200);
    expect(await slowA.finish()).toBe(200);
    expect(journalLines(journal).map((e) => e.body)).toEqual([b, a]);
    const stopped = await l.run.stop();
    expect(stopped.stderr).toContain('Stopped: 2 requests received; 2 not forwarded; still in the journal\n');
    const command = printedReplay(stopped.stderr)!;
    expect(command).toBe(`mailroom webhooks replay --journal ${journal} --lines 1-2 --forward-to ${hanging.url}`);
    const app = await goodApp();
    const replay = await runPrinted(command, app.url, hanging.url);
    expect(replay.code, replay.stderr).toBe(0);
    expect(app.received.map((r) => r.body.toString())).toEqual([b, a]);
  });

  it('the same with an app that answers B: only A is named (B was sent again by --since)', async () => {
    const answersB = await appAnsweringFirst(1);
    const journal = tempJournal();
    const l = await listen(['--journal', journal, '--forward-to', answersB.url, '--stop-timeout', '500']);
    const [a, b] = [envelope('a'), envelope('b')];
    const slowA = slowDelivery(l.url, a);
    await new Promise((r) => setTimeout(r, 20));
    expect((await post(l.url, b)).status).toBe(200);
    await l.run.waitForLine((line) => line.includes('b@example.com') && line.includes('"forward"'));
    expect(await slowA.finish()).toBe(200);
    const stopped = await l.run.stop();
    expect(stopped.stderr).toContain('Stopped: 2 requests received; 1 not forwarded; still in the journal\n');
    const command = printedReplay(stopped.stderr)!;
    expect(command).toBe(`mailroom webhooks replay --journal ${journal} --lines 2 --forward-to ${answersB.url}`);
    const app = await goodApp();
    expect((await runPrinted(command, app.url, answersB.url)).code).toBe(0);
    expect(app.received.map((r) => r.body.toString())).toEqual([a]);
  });

  it('--events CONTACT_CREATED: the command keeps the filter, so the excluded CONTACT_DELETED is not forwarded by it', async () => {
    const hanging = await appAnsweringFirst(0);
    const journal = tempJournal();
    const l = await listen(['--journal', journal, '--forward-to', hanging.url, '--stop-timeout', '500', '--events', 'CONTACT_CREATED']);
    const [a, d, b] = [envelope('a'), envelope('d', 'CONTACT_DELETED'), envelope('b')];
    const slowA = slowDelivery(l.url, a);
    await new Promise((r) => setTimeout(r, 20));
    expect((await post(l.url, b)).status).toBe(200);
    expect((await post(l.url, d)).status).toBe(200);
    expect(await slowA.finish()).toBe(200);
    expect(journalLines(journal).map((e) => e.body)).toEqual([b, d, a]);
    const stopped = await l.run.stop();
    expect(stopped.stderr).toContain('2 not forwarded; still in the journal\n');
    const command = printedReplay(stopped.stderr)!;
    expect(command).toBe(`mailroom webhooks replay --journal ${journal} --lines 1-3 --event CONTACT_CREATED --forward-to ${hanging.url}`);
    const app = await goodApp();
    expect((await runPrinted(command, app.url, hanging.url)).code).toBe(0);
    expect(app.received.map((r) => r.body.toString())).toEqual([b, a]);
  });

  it('failed forwards (a 500, then no app at all) are counted in the stop line and named by the command', async () => {
    let n = 0;
    const flaky = await startApp(token, () => (++n === 2 ? 500 : 200));
    const journal = tempJournal();
    const l = await listen(['--journal', journal, '--forward-to', flaky.url]);
    const bodies = [envelope('one'), envelope('two'), envelope('three'), envelope('four')];
    for (const [i, body] of bodies.slice(0, 3).entries()) {
      expect((await post(l.url, body)).status).toBe(200);
      await l.run.waitForLine((line) => line.includes(`${['one', 'two', 'three'][i]}@example.com`));
    }
    await flaky.close();
    expect((await post(l.url, bodies[3]!)).status).toBe(200);
    expect(await l.run.waitForLine((line) => line.includes('four@example.com'))).toContain('connection refused');
    const stopped = await l.run.stop();
    expect(stopped.stderr).toContain('Stopped: 4 requests received; 2 failed to forward; still in the journal\n');
    const command = printedReplay(stopped.stderr)!;
    expect(command).toBe(`mailroom webhooks replay --journal ${journal} --lines 2,4 --forward-to ${flaky.url}`);
    const app = await goodApp();
    expect((await runPrinted(command, app.url, flaky.url)).code).toBe(0);
    expect(app.received.map((r) => r.body.toString())).toEqual([bodies[1], bodies[3]]);
  });

  it('without --journal, failed forwards are counted as lost', async () => {
    const l = await listen(['--forward-to', 'http://127.0.0.1:9/down']);
    expect((await post(l.url, envelope('x'))).status).toBe(200);
    await l.run.waitForLine((line) => line.includes('connection refused'));
    const stopped = await l.run.stop();
    expect(stopped.stderr).toContain('Stopped: 1 request received; 1 failed to forward; lost (no --journal)\n');
  });
});

describe('webhooks replay: the command it prints re-sends only what the app did not take', () => {
  it('after Ctrl-C, the rest by journal line (not --since, which sent B again)', async () => {
    // Record B then A (A's body slow), as above, with no app.
    const journal = tempJournal();
    const l = await listen(['--journal', journal]);
    const [a, b, c] = [envelope('a'), envelope('b'), envelope('c')];
    const slowA = slowDelivery(l.url, a);
    await new Promise((r) => setTimeout(r, 20));
    expect((await post(l.url, b)).status).toBe(200);
    expect(await slowA.finish()).toBe(200);
    expect((await post(l.url, c)).status).toBe(200);
    await l.run.stop();

    // An app that holds the first delivery until the replay is interrupted.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let arrived!: () => void;
    const first = new Promise<void>((r) => (arrived = r));
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        bodies.push(body);
        arrived();
        void released.then(() => res.end('ok'));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    closers.push(() => new Promise<void>((r) => server.close(() => r())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const replay = startInProcess(['webhooks', 'replay', '--journal', journal, '--forward-to', url], { env: { MAILROOM_WEBHOOK_TOKEN: token } });
    await first;
    const stopping = replay.stop();
    release();
    const stopped = await stopping;
    expect(stopped.code).toBe(130);
    expect(bodies).toEqual([b]);
    expect(stopped.stderr).toContain('mailroom: interrupted: replayed 1 of 3 deliveries\n  to replay the rest:\n');
    const command = /^ {4}(mailroom webhooks replay .*)$/m.exec(stopped.stderr)?.[1];
    expect(command).toBe(`mailroom webhooks replay --journal ${journal} --forward-to ${url} --lines 2-3`);
    const app = await goodApp();
    expect((await runPrinted(command!, app.url, url)).code).toBe(0);
    expect(app.received.map((r) => r.body.toString())).toEqual([a, c]);
  });

  it('exit 7: the hint re-sends only the deliveries the app refused', async () => {
    const journal = tempJournal();
    const l = await listen(['--journal', journal]);
    const bodies = [envelope('one'), envelope('two'), envelope('three')];
    for (const body of bodies) expect((await post(l.url, body)).status).toBe(200);
    await l.run.stop();
    let n = 0;
    const flaky = await startApp(token, () => (++n === 2 ? 500 : 200));
    closers.push(() => flaky.close());
    const res = await runInProcess(['webhooks', 'replay', '--journal', journal, '--forward-to', flaky.url], { env: { MAILROOM_WEBHOOK_TOKEN: token } });
    expect(res.code).toBe(7);
    const command = /^ {4}(mailroom webhooks replay .*)$/m.exec(res.stderr)?.[1];
    expect(command).toBe(`mailroom webhooks replay --journal ${journal} --forward-to ${flaky.url} --lines 2`);
    const app = await goodApp();
    expect((await runPrinted(command!, app.url, flaky.url)).code).toBe(0);
    expect(app.received.map((r) => r.body.toString())).toEqual([bodies[1]]);
  });

  it('--lines: a bad list is exit 2 with one line; a journal appended to by a second run keeps numbering its lines', async () => {
    const bad = await runInProcess(['webhooks', 'replay', '--journal', '/nonexistent', '--lines', '3-1', '--forward-to', 'http://127.0.0.1:9/x'], { env: { MAILROOM_WEBHOOK_TOKEN: token } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('mailroom: --lines: "3-1" is not a list of journal line numbers and ranges (e.g. 12,15-20)\n');
    const journal = tempJournal();
    const first = await listen(['--journal', journal]);
    expect((await post(first.url, envelope('old'))).status).toBe(200);
    await first.run.stop();
    const hanging = await appAnsweringFirst(0);
    const second = await listen(['--journal', journal, '--forward-to', hanging.url, '--stop-timeout', '100']);
    expect((await post(second.url, envelope('new'))).status).toBe(200);
    expect(printedReplay((await second.run.stop()).stderr)).toBe(`mailroom webhooks replay --journal ${journal} --lines 2 --forward-to ${hanging.url}`);
  });
});
