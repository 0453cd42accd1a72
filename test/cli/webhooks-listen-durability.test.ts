import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess, startInProcess, type InProcessCommand } from '../helpers/context.js';
import { stuckApp } from '../webhook/helpers/stuck-app.js';
import { delivery, journalLines, post, sign, tempJournal, token } from '../webhook/helpers/durable-deliveries.js';

// The listener's queue, warnings and --max-age, in-process. SIGKILL, SIGTERM and the memory of a
// real process are in test/e2e/webhooks-listen-durability.test.ts.

interface Listener {
  run: InProcessCommand;
  url: string;
}
const running: InProcessCommand[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((l) => l.stop()));
});

async function listen(args: string[], env: Record<string, string> = {}): Promise<Listener> {
  const run = startInProcess(['webhooks', 'listen', '--port', '0', '--json', ...args], { env: { MAILROOM_WEBHOOK_TOKEN: token, ...env } });
  running.push(run);
  const url = (JSON.parse(await run.waitForLine((l) => l.includes('"ready"'), 15_000)) as { url: string }).url;
  return { run, url };
}

describe('webhooks listen: a bounded forward queue', () => {
  it('--forward-queue 3: the 4th delivery waiting for a stuck app is answered 503 with Retry-After, so the service retries it', async () => {
    const app = await stuckApp();
    try {
      const journal = tempJournal();
      const l = await listen(['--journal', journal, '--forward-to', app.url, '--forward-queue', '3']);
      for (let i = 0; i < 3; i++) expect((await post(l.url, delivery(i))).status).toBe(200);
      const full = await post(l.url, delivery(3));
      expect(full.status).toBe(503);
      expect(full.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(full.body.message).toBe(`the forward queue is full (3 deliveries waiting for ${app.url}, --forward-queue); retry later`);
      const lines = journalLines(journal);
      expect(lines.map((e) => e.status)).toEqual([200, 200, 200, 503]);
    } finally {
      await app.close();
    }
  });

  it('--forward-to without --journal warns at start that a 200 then means received, not stored', async () => {
    const app = await stuckApp();
    try {
      const l = await listen(['--forward-to', app.url]);
      // The warning is written before the ready line.
      expect(l.run.stderr()).toContain('mailroom: warning: without --journal, deliveries waiting to be forwarded are lost if the listener stops');
    } finally {
      await app.close();
    }
  });
});

describe('webhooks listen --host', () => {
  it('a non-loopback host warns as the sandbox does; loopback does not', async () => {
    const open = await listen(['--host', '0.0.0.0']);
    expect(await open.run.waitForErrLine((l) => l.includes('warning'))).toContain('mailroom: warning: listening on 0.0.0.0: other machines may reach this listener');
    const local = await listen(['--host', '127.0.0.1']);
    await local.run.waitForErrLine((l) => l.startsWith('Ready'));
    expect(local.run.stderr()).not.toContain('warning');
  });
});

describe('webhooks listen --max-age and verify --max-age', () => {
  it('listen refuses a delivery whose envelope time is older than --max-age (401, a possible replay), or far in the future, or untimed; fresh ones pass', async () => {
    const l = await listen(['--max-age', '5m']);
    const old = delivery(1, new Date(Date.now() - 3_600_000).toISOString());
    const stale = await post(l.url, old);
    expect(stale.status).toBe(401);
    expect(stale.body.message).toMatch(/^the delivery was created at \S+, 1 hour ago, over --max-age 5m: refused as a possible replay$/);
    expect((await post(l.url, delivery(2))).status).toBe(200);
    const observedOld = JSON.stringify({ event: 'CONTACT_UPDATED', payload: { contact: { email: 'x@example.com' } }, timestamp: Date.now() - 7_200_000, version: 1 });
    expect((await post(l.url, observedOld)).status).toBe(401);
    const untimed = JSON.stringify({ event: 'CONTACT_UPDATED', payload: { contact: { email: 'y@example.com' } }, version: 1 });
    const noTime = await post(l.url, untimed);
    expect(noTime.status).toBe(401);
    expect(noTime.body.message).toBe('the delivery carries no time (createdAt or timestamp), so --max-age 5m cannot tell it from a replay: refused');
    const future = await post(l.url, delivery(3, new Date(Date.now() + 3_600_000).toISOString()));
    expect(future.status).toBe(401);
    expect(future.body.message).toMatch(/^the delivery was created at \S+, in (59 minutes|1 hour), beyond the 60 s allowed for clock skew: refused as a possible replay/);
    expect((await post(l.url, delivery(4, new Date(Date.now() + 20_000).toISOString()))).status).toBe(200);
  });

  it('verify --max-age: exit 8 for a stale delivery, 0 for a fresh one; a bad duration is exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-age-'));
    const old = delivery(1, new Date(Date.now() - 3_600_000).toISOString());
    writeFileSync(join(dir, 'old.json'), old);
    const fresh = delivery(2);
    writeFileSync(join(dir, 'fresh.json'), fresh);
    const env = { MAILROOM_WEBHOOK_TOKEN: token };
    const stale = await runInProcess(['webhooks', 'verify', '--signature', sign(old), '--payload', join(dir, 'old.json'), '--max-age', '10m'], { env });
    expect(stale.code).toBe(8);
    expect(stale.stderr).toMatch(/^mailroom: the delivery was created at \S+, 1 hour ago, over --max-age 10m: refused as a possible replay\n/);
    const ok = await runInProcess(['webhooks', 'verify', '--signature', sign(fresh), '--payload', join(dir, 'fresh.json'), '--max-age', '10m'], { env });
    expect(ok.code, ok.stderr).toBe(0);
    const bad = await runInProcess(['webhooks', 'verify', '--signature', sign(fresh), '--payload', join(dir, 'fresh.json'), '--max-age', 'soon'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^mailroom: --max-age: "soon" is not a duration/);
  });
});
