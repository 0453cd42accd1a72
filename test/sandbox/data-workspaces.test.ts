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
