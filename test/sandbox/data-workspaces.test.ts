import { copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { client } from '../helpers/sandbox.js';

const raw = (over: Record<string, unknown> = {}) => ({ from: 'ops@example.com', to: 'ada@customer.test', subject: 'Hi', html: '<p>Hi</p>', ...over });

let dir: string;
let receiver: Server;
let hookUrl: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailroom-data-workspaces-'));
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

interface Made {
  workspaceId: string;
  name: string;
  apiKey: string;
}

async function inspect(sb: RunningSandbox, method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await sb.call(method, path, body);
  if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

async function deliveriesOf(sb: RunningSandbox, workspaceId: string, count: number): Promise<{ id: string; event: string; body: string }[]> {
  for (;;) {
    const { items } = await inspect(sb, 'GET', `/_sandbox/deliveries?workspace=${workspaceId}`);
    if (items.length >= count) return items;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('--data saves every workspace, not only the first', () => {
  test('a workspace made for tests keeps its keys, webhooks, emails, contacts, deliveries and idempotency keys, as acknowledged (the files a SIGKILL leaves) and across a restart; each stays isolated', async () => {
    const dataFile = join(dir, 'state.json');
    const first = await startSandbox({ dataFile });
    const call = client(first);
    const made = (await inspect(first, 'POST', '/_sandbox/workspaces', { name: 'worker 1' })) as Made;
    const other = (await inspect(first, 'POST', '/_sandbox/workspaces', {})) as Made;
    const as = (key: string) => (method: string, path: string, body?: unknown) => call(method, path, body, { key });
    const inMade = as(made.apiKey);
    const hook = (await inMade('POST', '/v1/webhooks', { url: hookUrl, events: ['CONTACT_CREATED', 'CONTACT_UPDATED'] })).body.webhook;
    const sent = (await inMade('POST', '/v1/emails', raw({ idempotencyKey: 'shared-key' }))).body.email;
    const otherSent = (await as(other.apiKey)('POST', '/v1/emails', raw({ idempotencyKey: 'shared-key', subject: 'from the other' }))).body.email;
    expect(otherSent.id).not.toBe(sent.id);
    // The delivery is recorded after the send's answer; the next acknowledged write covers it.
    const [delivery] = await deliveriesOf(first, made.workspaceId, 1);
    const contactId = JSON.parse(delivery!.body).data.contact.id as string;
    const ci = (await inMade('POST', `/v1/workspaces/${made.workspaceId}/api-keys`, { displayName: 'ci', role: 'VIEWER' })).body.apiKey;

    const expectSaved = async (sb: RunningSandbox) => {
      const again = client(sb);
      expect(sb.workspaceId).toBe(first.workspaceId);
      const listed = (await inspect(sb, 'GET', '/_sandbox/workspaces')).items;
      expect(listed).toEqual([
        { id: first.workspaceId, name: 'Sandbox workspace', emails: 0 },
        { id: made.workspaceId, name: 'worker 1', emails: 1 },
        { id: other.workspaceId, name: other.name, emails: 1 },
      ]);
      expect((await again('GET', '/v1/api-keys/check', undefined, { key: made.apiKey })).status).toBe(200);
      expect((await again('GET', '/v1/api-keys/check', undefined, { key: ci.secretKey })).body).toMatchObject({ displayName: 'ci', role: 'VIEWER' });
      expect((await again('GET', `/v1/webhooks/${hook.id}`, undefined, { key: made.apiKey })).body.webhook).toEqual(hook);
      // Isolation: the first workspace's key sees neither the webhook nor the other keys' emails.
      expect((await again('GET', `/v1/webhooks/${hook.id}`)).status).toBe(404);
      expect((await again('GET', `/v1/workspaces/${made.workspaceId}/api-keys`)).status).toBe(403);
      expect((await inspect(sb, 'GET', `/_sandbox/emails?workspace=${made.workspaceId}`)).items.map((e: { id: string }) => e.id)).toEqual([sent.id]);
      expect((await inspect(sb, 'GET', `/_sandbox/emails?workspace=${other.workspaceId}`)).items.map((e: { id: string }) => e.id)).toEqual([otherSent.id]);
      expect((await inspect(sb, 'GET', '/_sandbox/emails')).items).toEqual([]);
      expect((await inspect(sb, 'GET', `/_sandbox/deliveries?workspace=${made.workspaceId}`)).items.map((d: { id: string }) => d.id)).toEqual([delivery!.id]);
      expect((await inspect(sb, 'GET', '/_sandbox/deliveries')).items).toEqual([]);
      // Each workspace's idempotency key still answers its own first email.
      expect((await again('POST', '/v1/emails', raw({ idempotencyKey: 'shared-key', subject: 'again' }), { key: made.apiKey })).body.email).toEqual(sent);
      expect((await again('POST', '/v1/emails', raw({ idempotencyKey: 'shared-key', subject: 'again' }), { key: other.apiKey })).body.email).toEqual(otherSent);
      // The contact the send created is the same one.
      const updated = await inspect(sb, 'POST', '/_sandbox/events', { event: 'CONTACT_UPDATED', email: 'ada@customer.test', workspace: made.workspaceId });
      expect(updated.event.data.contact.id).toBe(contactId);
    };

    // What is on disk while the first still runs, as a SIGKILL would leave it, in a second sandbox.
    const copy = join(dir, 'copy');
    await mkdir(copy);
    for (const f of await readdir(dir)) if (f.startsWith('state.json')) await copyFile(join(dir, f), join(copy, f));
    const second = await startSandbox({ dataFile: join(copy, 'state.json') });
    try {
      await expectSaved(second);
    } finally {
      await second.close();
      await first.close();
    }
    // A clean stop: the snapshot holds every workspace.
    const third = await startSandbox({ dataFile });
    try {
      await expectSaved(third);
      const later = (await inspect(third, 'POST', '/_sandbox/workspaces', {})) as Made;
      expect([first.workspaceId, made.workspaceId, other.workspaceId]).not.toContain(later.workspaceId);
    } finally {
      await third.close();
    }
  });
});

describe('--data and deleted workspaces', () => {
  /** The files a SIGKILL would leave now, copied beside the data file into a directory of their own. */
  async function killedCopy(dataFile: string, name: string): Promise<string> {
    const copy = join(dir, name);
    await mkdir(copy);
    const base = dataFile.split('/').at(-1)!;
    for (const f of await readdir(dir)) if (f.startsWith(base)) await copyFile(join(dir, f), join(copy, f));
    return join(copy, base);
  }

  test('a deletion is saved before its answer: after a kill (journal) and after a clean stop (snapshot) the workspace is gone, its key refused, its changes before the deletion replayed without error; the others stay', async () => {
    const dataFile = join(dir, 'deleted.json');
    const first = await startSandbox({ dataFile });
    const call = client(first);
    const gone = (await inspect(first, 'POST', '/_sandbox/workspaces', { name: 'gone' })) as Made;
    const kept = (await inspect(first, 'POST', '/_sandbox/workspaces', { name: 'kept' })) as Made;
    // Journal lines naming the workspace before its deletion: keys, webhooks, emails, contacts, deliveries.
    const inGone = (method: string, path: string, body?: unknown) => call(method, path, body, { key: gone.apiKey });
    await inGone('POST', '/v1/webhooks', { url: hookUrl, events: ['CONTACT_CREATED'] });
    await inGone('POST', `/v1/workspaces/${gone.workspaceId}/api-keys`, { displayName: 'ci', role: 'VIEWER' });
    expect((await inGone('POST', '/v1/emails', raw({ idempotencyKey: 'k1' }))).status).toBe(200);
    expect((await inGone('POST', '/v1/emails/batch', { emails: [raw({ to: 'b1@customer.test' }), raw({ to: 'b2@customer.test' })] })).status).toBe(200);
    expect((await inGone('POST', '/v1/emails', raw({ sendAt: new Date(Date.now() + 3_600_000).toISOString() }))).status).toBe(200);
    await deliveriesOf(first, gone.workspaceId, 3);
    expect((await call('POST', '/v1/emails', raw({ subject: 'kept' }), { key: kept.apiKey })).status).toBe(200);

    expect(await first.call('DELETE', `/_sandbox/workspaces/${gone.workspaceId}`, {})).toEqual({ status: 200, body: { deleted: gone.workspaceId } });
    const journal = (await readdir(dir)).filter((f) => f.startsWith('deleted.json.journal-'));
    expect(journal.length).toBeGreaterThan(0);

    const expectGone = async (sb: RunningSandbox) => {
      const again = client(sb);
      expect((await inspect(sb, 'GET', '/_sandbox/workspaces')).items).toEqual([
        { id: first.workspaceId, name: 'Sandbox workspace', emails: 0 },
        { id: kept.workspaceId, name: 'kept', emails: 1 },
      ]);
      expect((await again('GET', '/v1/api-keys/check', undefined, { key: gone.apiKey })).status).toBe(401);
      expect((await again('POST', '/v1/emails', raw(), { key: gone.apiKey })).status).toBe(401);
      expect((await sb.call('GET', `/_sandbox/emails?workspace=${gone.workspaceId}`)).status).toBe(404);
      expect((await again('GET', '/v1/api-keys/check', undefined, { key: kept.apiKey })).status).toBe(200);
      expect((await inspect(sb, 'GET', `/_sandbox/emails?workspace=${kept.workspaceId}`)).items.map((e: { subject: string }) => e.subject)).toEqual(['kept']);
    };

    const killed = await startSandbox({ dataFile: await killedCopy(dataFile, 'killed') });
    try {
      await expectGone(killed);
    } finally {
      await killed.close();
      await first.close();
    }
    const { readFile } = await import('node:fs/promises');
    const snapshot = JSON.parse(await readFile(dataFile, 'utf8')) as { workspaces: { workspace: { id: string } }[] };
    expect(snapshot.workspaces.map((w) => w.workspace.id)).toEqual([kept.workspaceId]);
    expect(JSON.stringify(snapshot)).not.toContain(gone.apiKey);
    const restarted = await startSandbox({ dataFile });
    try {
      await expectGone(restarted);
    } finally {
      await restarted.close();
    }
  });

  test('a change of a deleted workspace journaled after its deletion (a request under way at that moment) replays without error and brings nothing back', async () => {
    const dataFile = join(dir, 'late.json');
    const first = await startSandbox({ dataFile });
    const ws = (await inspect(first, 'POST', '/_sandbox/workspaces', {})) as Made;
    await first.close();
    const { appendFile, readFile } = await import('node:fs/promises');
    const { journal } = JSON.parse(await readFile(dataFile, 'utf8')) as { journal: number };
    const email = { id: 'trs_late0000000000000001', messageId: 'm', status: 'SENT', to: 'ada@customer.test', type: 'raw', html: '<p>x</p>', settings: { trackClicks: false, trackOpens: false }, createdAt: new Date().toISOString() };
    await appendFile(
      `${dataFile}.journal-${journal}`,
      [
        JSON.stringify({ t: 'e', w: ws.workspaceId, email: { ...email, id: 'trs_before0000000000001' } }),
        JSON.stringify({ t: 'workspaceDeleted', id: ws.workspaceId }),
        JSON.stringify({ t: 'e', w: ws.workspaceId, email }),
        JSON.stringify({ t: 'reset', w: ws.workspaceId }),
        '',
      ].join('\n'),
    );
    const again = await startSandbox({ dataFile });
    try {
      expect((await inspect(again, 'GET', '/_sandbox/workspaces')).items.map((w: { id: string }) => w.id)).toEqual([again.workspaceId]);
      expect((await again.call('GET', '/_sandbox/emails/trs_late0000000000000001')).status).toBe(404);
      expect((await client(again)('GET', '/v1/api-keys/check', undefined, { key: ws.apiKey })).status).toBe(401);
    } finally {
      await again.close();
    }
  });

  test('the 1,000 workspaces count drops with each deletion, also after a restart; the refusal names deletion', async () => {
    const dataFile = join(dir, 'count.json');
    const first = await startSandbox({ dataFile });
    const ids: string[] = [];
    for (let i = 0; i < 1000; i++) ids.push(((await inspect(first, 'POST', '/_sandbox/workspaces', {})) as Made).workspaceId);
    const full = await first.call('POST', '/_sandbox/workspaces', {});
    expect(full).toEqual({
      status: 409,
      body: {
        statusCode: 409,
        error: 'Conflict',
        message:
          "This sandbox has 1000 workspaces already: delete those your tests are done with (mailroom sandbox workspace delete <wrk_id>, DELETE /_sandbox/workspaces/<wrk_id>, or the library's workspace.delete()), or start it with another --data file to start over",
      },
    });
    for (const id of ids.slice(0, 2)) expect((await first.call('DELETE', `/_sandbox/workspaces/${id}`, {})).status).toBe(200);
    expect((await first.call('POST', '/_sandbox/workspaces', {})).status).toBe(200);
    const killed = await startSandbox({ dataFile: await killedCopy(dataFile, 'count-killed') });
    try {
      // 999 made after the restart: one more fits, then the sandbox is full again.
      expect((await killed.call('POST', '/_sandbox/workspaces', {})).status).toBe(200);
      expect((await killed.call('POST', '/_sandbox/workspaces', {})).status).toBe(409);
    } finally {
      await killed.close();
      await first.close();
    }
  }, 30_000);
});
