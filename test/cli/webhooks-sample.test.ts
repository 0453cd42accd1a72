import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';

const EVENTS = ['CONTACT_CREATED', 'CONTACT_UPDATED', 'CONTACT_UNSUBSCRIBED', 'CONTACT_RESUBSCRIBED', 'CONTACT_DELETED', 'WORKSPACE_TEAM_MEMBER_JOINED'];
const token = 'wht_e2e_sample_9dK2';
const dir = mkdtempSync(join(tmpdir(), 'mailroom-sample-'));

describe('mailroom webhooks sample', () => {
  it.each(EVENTS)('%s: prints the exact signed bytes and a signature header that verify accepts', async (event) => {
    const res = await runInProcess(['webhooks', 'sample', event, '--token', token, '--email', 'grace.hopper@example.com']);
    expect(res.code).toBe(0);
    const payload = JSON.parse(res.stdout) as { event: string; createdAt: string; data: Record<string, { email?: string }> };
    expect(payload.event).toBe(event);
    expect(Number.isNaN(Date.parse(payload.createdAt))).toBe(false);
    const who = event === 'WORKSPACE_TEAM_MEMBER_JOINED' ? payload.data.user : payload.data.contact;
    expect(who?.email).toBe('grace.hopper@example.com');
    const independent = createHmac('sha256', token).update(res.stdout).digest('hex');
    expect(res.stderr).toBe(`X-Smashsend-Signature: ${independent}\n`);

    const body = join(dir, `${event}.json`);
    const headers = join(dir, `${event}.headers`);
    writeFileSync(body, res.stdout);
    writeFileSync(headers, res.stderr);
    const verified = await runInProcess(['webhooks', 'verify', '--token', token, '--header-file', headers, '--payload', body]);
    expect(verified.code).toBe(0);
  });

  it('adds a newline only on a terminal, and the signature still covers the JSON alone', async () => {
    const res = await runInProcess(['webhooks', 'sample', 'CONTACT_CREATED', '--token', token], { tty: 'stdout' });
    expect(res.code).toBe(0);
    expect(res.stdout.endsWith('}\n')).toBe(true);
    const json = res.stdout.slice(0, -1);
    expect(res.stderr).toBe(`X-Smashsend-Signature: ${createHmac('sha256', token).update(json).digest('hex')}\n`);
  });

  it('prints no signature without a token', async () => {
    const res = await runInProcess(['webhooks', 'sample', 'CONTACT_DELETED']);
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
  });

  it('exits 2 on an unknown event, listing the valid ones', async () => {
    const res = await runInProcess(['webhooks', 'sample', 'CONTACT_EXPLODED']);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('unknown event CONTACT_EXPLODED (did you mean CONTACT_UPDATED or CONTACT_DELETED?); valid: ');
    for (const e of EVENTS) expect(res.stderr).toContain(e);
  });
});
