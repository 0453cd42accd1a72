import { copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { MAX_DELIVERIES_IN_FLIGHT } from '../../src/sandbox/deliveries.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { client } from '../helpers/sandbox.js';

// Every count /_sandbox reports is what it was after a restart on the same --data, from the
// journal (the files a SIGKILL leaves) as from the snapshot a clean stop writes: the deliveries
// the full queue dropped, and the email and delivery totals past what --retain keeps.

let dir: string;
let receiver: Server;
let hookUrl: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailroom-data-counts-'));
  // Never answers: the deliveries wait for it until the queue is full.
  receiver = createServer((req) => req.resume());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterEach(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

const config = { retain: 3, deliveries: { retryDelaysMs: [], timeoutMs: 60_000, maxQueued: 2 } };

async function get(sb: RunningSandbox, path: string): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await sb.call('GET', path);
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
  return res.body;
}

/** The counts the inspection endpoints report for the first workspace and a made one. */
async function counts(sb: RunningSandbox, made: string) {
  const of = async (q: string) => {
    const d = await get(sb, `/_sandbox/deliveries${q}`);
    return {
      emails: (await get(sb, `/_sandbox/emails?limit=0${q ? `&${q.slice(1)}` : ''}`)).total,
      scheduled: (await get(sb, `/_sandbox/emails?limit=0&status=SCHEDULED${q ? `&${q.slice(1)}` : ''}`)).total,
      deliveries: d.total,
      dropped: d.dropped,
      kept: d.items.length,
    };
  };
  return { first: await of(''), made: await of(`?workspace=${made}`), workspaces: (await get(sb, '/_sandbox/workspaces')).items };
}

describe('--data keeps every count the inspection endpoints report', () => {
  test('dropped deliveries and the totals past --retain, in every workspace: the same after a kill (journal) and after a clean stop (snapshot)', async () => {
    const dataFile = join(dir, 'state.json');
    const first = await startSandbox({ dataFile, config });
    const call = client(first);
    const made = (await first.call('POST', '/_sandbox/workspaces', { name: 'worker 1' })).body as { workspaceId: string; apiKey: string };
    for (const key of [first.apiKey, made.apiKey]) {
      expect((await call('POST', '/v1/webhooks', { url: hookUrl, events: ['CONTACT_DELETED'] }, { key })).status).toBe(200);
      for (let i = 0; i < 5; i++) {
        const scheduled = i === 0 ? { sendAt: new Date(Date.now() + 3_600_000).toISOString() } : {};
        expect((await call('POST', '/v1/emails', { from: 'ops@example.com', to: `r${i}@customer.test`, subject: `n${i}`, html: '<p>Hi</p>', ...scheduled }, { key })).status).toBe(200);
      }
    }
    const events = MAX_DELIVERIES_IN_FLIGHT + 2 + 4;
    for (const workspace of [undefined, made.workspaceId]) {
      for (let i = 0; i < events; i++) expect((await first.call('POST', '/_sandbox/events', { event: 'CONTACT_DELETED', ...(workspace ? { workspace } : {}) })).status).toBe(200);
    }
    for (;;) {
      const now = await counts(first, made.workspaceId);
      if (now.first.dropped === 4 && now.made.dropped === 4) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // A write answered after the drops: every change so far is on disk.
    expect((await first.call('POST', '/_sandbox/events', { event: 'CONTACT_CREATED' })).status).toBe(200);
    const before = await counts(first, made.workspaceId);
    expect(before.first).toEqual({ emails: 5, scheduled: 1, deliveries: 4, dropped: 4, kept: 3 });
    expect(before.made).toEqual({ emails: 5, scheduled: 1, deliveries: 4, dropped: 4, kept: 3 });

    const copy = join(dir, 'copy');
    await mkdir(copy);
    for (const f of await readdir(dir)) if (f.startsWith('state.json')) await copyFile(join(dir, f), join(copy, f));
    const killed = await startSandbox({ dataFile: join(copy, 'state.json'), config });
    try {
      expect(await counts(killed, made.workspaceId)).toEqual(before);
    } finally {
      await killed.close();
      await first.close();
    }
    const restarted = await startSandbox({ dataFile, config });
    try {
      expect(await counts(restarted, made.workspaceId)).toEqual(before);
    } finally {
      await restarted.close();
    }
  });
});
