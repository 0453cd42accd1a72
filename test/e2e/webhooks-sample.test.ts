import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, runOnce } from '../webhook/helpers/cli-process.js';

const EVENTS = ['CONTACT_CREATED', 'CONTACT_UPDATED', 'CONTACT_UNSUBSCRIBED', 'CONTACT_RESUBSCRIBED', 'CONTACT_DELETED', 'WORKSPACE_TEAM_MEMBER_JOINED'];
const token = 'wht_e2e_sample_9dK2';
const dir = mkdtempSync(join(tmpdir(), 'mailroom-sample-'));

describe('mailroom webhooks sample', () => {
  it.each(EVENTS)('%s: prints the exact signed bytes and a signature header that verify accepts', async (event) => {
    const res = await runOnce(['webhooks', 'sample', event, '--token', token, '--email', 'grace.hopper@example.com'], cliEnv());
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
    const verified = await runOnce(['webhooks', 'verify', '--token', token, '--header-file', headers, '--payload', body], cliEnv());
    expect(verified.code).toBe(0);
  });

  it('prints no signature without a token', async () => {
    const res = await runOnce(['webhooks', 'sample', 'CONTACT_DELETED'], cliEnv());
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
  });

  it('exits 2 on an unknown event, listing the valid ones', async () => {
    const res = await runOnce(['webhooks', 'sample', 'CONTACT_EXPLODED'], cliEnv());
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('unknown event CONTACT_EXPLODED; valid: ');
    for (const e of EVENTS) expect(res.stderr).toContain(e);
  });
});
