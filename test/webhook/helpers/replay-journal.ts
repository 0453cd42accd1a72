import { expect } from 'vitest';
import { startInProcess } from '../../helpers/context.js';
import type { TestSandbox } from '../../helpers/sandbox.js';

export const REPLAY_TOKEN = 'wht_e2eReplayToken5Vb1';
export const FIRED = ['CONTACT_CREATED', 'CONTACT_UNSUBSCRIBED', 'WORKSPACE_TEAM_MEMBER_JOINED', 'CONTACT_DELETED'] as const;

/**
 * A listener journal for replay tests, made the real way: `webhooks listen --journal` (in-process)
 * receives the sandbox's deliveries of FIRED, plus one forged request it refuses (replay must skip it).
 * Returns the envelopes as sent, in order, and the webhook's id.
 */
export async function recordJournal(sandbox: TestSandbox, journal: string): Promise<{ sent: string[]; webhookId: string }> {
  const token = REPLAY_TOKEN;
  const sent: string[] = [];
  const listen = startInProcess(['webhooks', 'listen', '--port', '0', '--journal', journal, '--json'], { env: { MAILROOM_WEBHOOK_TOKEN: token } });
  const { url } = JSON.parse(await listen.waitForLine((l) => l.includes('"ready"'))) as { url: string };
  const created = await fetch(`${sandbox.baseUrl}/v1/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${url}/in`, events: [...FIRED], token }),
  });
  expect(created.status).toBeLessThan(300);
  const webhookId = ((await created.json()) as { webhook: { id: string } }).webhook.id;
  for (const [i, event] of FIRED.entries()) {
    const res = await fetch(`${sandbox.baseUrl}/_sandbox/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event, email: `r${i}@example.com` }) });
    sent.push(JSON.stringify(((await res.json()) as { event: unknown }).event));
    await listen.waitForLine((l) => l.includes(`"event":"${event}"`));
    // A forged request lands in the journal too, refused; replay must skip it.
    if (i === 1) expect((await fetch(`${url}/forged`, { method: 'POST', body: '{"event":"CONTACT_DELETED","createdAt":"x","data":{}}' })).status).toBe(401);
  }
  await listen.waitForLine((l) => l.includes('"status":401'));
  expect((await listen.stop()).code).toBe(130);
  return { sent, webhookId };
}
