import { once } from 'node:events';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, spawnCli, startCli } from '../helpers/cli.js';

// What only a process shows: a real terminal, SIGTERM, a closed stdout. The listener's HTTP
// behaviour, output and argv checks run in-process in test/cli/webhooks-listen.test.ts.

describe('webhooks listen on a terminal', () => {
  it('prints one readable line per event: time, event, who, verified', async () => {
    const token = 'wht_e2eTerminalToken1';
    const listen = startCli(['webhooks', 'listen', '--port', '0', '--token', token, '--no-color'], cliEnv(), { tty: true });
    try {
      const ready = await listen.waitForLine((l) => l.startsWith('Ready: listening on '));
      const url = /(http:\/\/[^\s;]+)/.exec(ready)![1]!;
      const body = JSON.stringify({ event: 'CONTACT_UNSUBSCRIBED', createdAt: '2026-11-22T08:00:00.000Z', data: { contact: { email: 'ada@example.com' } } });
      const signature = createHmac('sha256', token).update(body).digest('hex');
      expect((await fetch(url, { method: 'POST', body, headers: { 'x-smashsend-signature': signature } })).status).toBe(200);
      expect((await fetch(url, { method: 'POST', body })).status).toBe(401);
      expect(await listen.waitForLine((l) => l.includes('CONTACT_UNSUBSCRIBED'))).toMatch(/^\d\d:\d\d:\d\d {2}CONTACT_UNSUBSCRIBED {2}ada@example\.com {2}verified ✓$/);
      expect(await listen.waitForLine((l) => l.includes('401'))).toMatch(/^\d\d:\d\d:\d\d {2}401 ✗ no signature header: expected X-Smashsend-Signature \(or any X-\*-Signature\) {2}\(\/\)$/);
      expect(listen.lines.join('\n')).not.toContain(token);
    } finally {
      await listen.stop();
    }
  });
});

describe('webhooks listen: stopping', () => {
  const token = 'wht_e2eStopToken8Wm3';
  const body = JSON.stringify({ event: 'CONTACT_CREATED', createdAt: '2026-11-22T08:00:00.000Z', data: { contact: { email: 'ada@example.com' } } });
  const signature = createHmac('sha256', token).update(body).digest('hex');

  function start(args: string[]) {
    const child = spawnCli(['webhooks', 'listen', '--port', '0', '--json', ...args], { env: cliEnv({ MAILROOM_WEBHOOK_TOKEN: token }), stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const ready = (async () => {
      await expect.poll(() => stdout, { timeout: 10_000 }).toContain('"ready"');
      return (JSON.parse(stdout.split('\n')[0]!) as { url: string }).url;
    })();
    return { child, ready, exited, stdout: () => stdout, stderr: () => stderr };
  }

  it('stops cleanly on SIGTERM (kill %1 in the README): journal written, exit 0', async () => {
    const journal = join(mkdtempSync(join(tmpdir(), 'mailroom-term-')), 'deliveries.ndjson');
    const listen = start(['--journal', journal]);
    const url = await listen.ready;
    expect((await fetch(url, { method: 'POST', body, headers: { 'x-smashsend-signature': signature } })).status).toBe(200);
    await expect.poll(() => listen.stdout()).toContain('"event":"CONTACT_CREATED"');
    listen.child.kill('SIGTERM');
    expect(await listen.exited).toBe(0);
    expect(listen.stderr()).toContain('Stopped: 1 request received');
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('stops cleanly, without a stack trace, when stdout is closed (listen | head -1)', async () => {
    const listen = start([]);
    const url = await listen.ready;
    listen.child.stdout.destroy();
    // Gone only once closed: before that, on a busy machine, the line below could still land in the
    // pipe (and the listener rightly keep listening, as `yes` does until its next write fails).
    await once(listen.child.stdout, 'close');
    // The delivery's line is the first write after the reader left: it fails, and the listener stops.
    await fetch(url, { method: 'POST', body, headers: { 'x-smashsend-signature': signature } }).catch(() => undefined);
    expect(await listen.exited).toBe(0);
    expect(listen.stderr()).not.toMatch(/EPIPE|node:events|at /);
    expect(listen.stderr()).toContain('Stopped:');
  });
});
