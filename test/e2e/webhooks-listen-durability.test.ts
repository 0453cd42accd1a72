import { type ChildProcess } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnv, spawnCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/context.js';
import { startApp } from '../webhook/helpers/test-app.js';
import { stuckApp } from '../webhook/helpers/stuck-app.js';
import { delivery, journalLines, post, sign, tempJournal, token } from '../webhook/helpers/durable-deliveries.js';

// What only a process shows: SIGKILL, SIGTERM and the memory of a real process. The queue, warnings
// and --max-age run in-process in test/cli/webhooks-listen-durability.test.ts.

interface Listener {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
}
const running: Listener[] = [];
afterEach(() => {
  for (const l of running.splice(0)) if (l.child.exitCode === null) l.child.kill('SIGKILL');
});

async function listen(args: string[], env: Record<string, string> = {}): Promise<Listener> {
  const child = spawnCli(['webhooks', 'listen', '--port', '0', '--json', ...args], { env: cliEnv({ MAILROOM_WEBHOOK_TOKEN: token, ...env }), stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  await new Promise<void>((resolve, reject) => {
    const ready = () => stdout.includes('"ready"') && resolve();
    child.stdout.on('data', ready);
    void exited.then((code) => reject(new Error(`exited ${code} before it was ready: ${stderr}`)));
  });
  const url = (JSON.parse(stdout.split('\n')[0]!) as { url: string }).url;
  const l = { child, url, exited, stdout: () => stdout, stderr: () => stderr };
  running.push(l);
  return l;
}

describe('webhooks listen: a 2xx means the delivery is on disk', () => {
  it('20 deliveries answered 200 while the app is stuck are all in the journal after a SIGKILL', async () => {
    const app = await stuckApp();
    try {
      const journal = tempJournal();
      const l = await listen(['--journal', journal, '--forward-to', app.url]);
      const bodies = Array.from({ length: 20 }, (_, i) => delivery(i));
      const answers = await Promise.all(bodies.map((b) => post(l.url, b)));
      expect(answers.map((a) => a.status)).toEqual(bodies.map(() => 200));
      l.child.kill('SIGKILL');
      await l.exited;
      const lines = journalLines(journal);
      expect(lines.map((e) => e.status)).toEqual(bodies.map(() => 200));
      expect(lines.map((e) => e.body).sort()).toEqual([...bodies].sort());
    } finally {
      await app.close();
    }
  });
});

describe('webhooks listen: a bounded stop', () => {
  it('SIGTERM with a backlog for a stuck app: stops within --stop-timeout, exit 0, and prints the replay command for what was not forwarded', async () => {
    const app = await stuckApp();
    const fine = await startApp(token);
    try {
      const journal = tempJournal();
      const l = await listen(['--journal', journal, '--forward-to', app.url, '--stop-timeout', '500']);
      const bodies = Array.from({ length: 5 }, (_, i) => delivery(i));
      for (const b of bodies) expect((await post(l.url, b)).status).toBe(200);
      await app.arrived(1);
      const started = Date.now();
      l.child.kill('SIGTERM');
      expect(await l.exited).toBe(0);
      expect(Date.now() - started).toBeLessThan(3_000);
      const stopped = l.stderr();
      expect(stopped).toMatch(/Stopped: 5 requests received; 5 not forwarded; still in the journal\n/);
      const command = /^ {2}to forward them: (mailroom webhooks replay .*)$/m.exec(stopped)?.[1];
      expect(command).toBe(`mailroom webhooks replay --journal ${journal} --lines 1-5 --forward-to ${app.url}`);
      // Replayed to a working app, the five arrive in order.
      const args = command!.replace(/^mailroom /, '').replace(app.url, fine.url).split(' ');
      const replay = await runInProcess(args, { env: { MAILROOM_WEBHOOK_TOKEN: token } });
      expect(replay.code, replay.stderr).toBe(0);
      expect(fine.received.map((r) => r.body.toString())).toEqual(bodies);
    } finally {
      await app.close();
      await fine.close();
    }
  });

});

describe('webhooks listen under a flood of bad deliveries', () => {
  const rss = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

  it('25 badly signed 1 MB deliveries: memory stays flat and the journal keeps headers and a digest, not the bodies', async () => {
    const journal = tempJournal();
    const l = await listen(['--journal', journal]);
    const big = JSON.stringify({ event: 'CONTACT_CREATED', createdAt: new Date().toISOString(), data: { pad: 'x'.repeat(1024 * 1024 - 200) } });
    // Warm up (first request allocations), then measure.
    expect((await post(l.url, big, sign('other'))).status).toBe(401);
    const before = rss(l.child.pid!);
    for (let i = 0; i < 25; i++) expect((await post(l.url, big, sign('other'))).status).toBe(401);
    const after = rss(l.child.pid!);
    // Before the cap: +230 MB over 25 requests. Each body is 1 MB; a few in flight at most.
    expect(after - before).toBeLessThan(40 * 1024 * 1024);
    console.log(`listen RSS: ${Math.round(before / 1048576)} MB before, ${Math.round(after / 1048576)} MB after 25 bad 1 MB deliveries`);
    const lines = journalLines(journal);
    expect(lines).toHaveLength(26);
    for (const e of lines) {
      expect(e.status).toBe(401);
      expect(e.body).toBeUndefined();
      expect(e.bodyBytes).toBe(Buffer.byteLength(big));
      expect(e.bodySha256).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(statSync(journal).size).toBeLessThan(26 * 2048);
  });
});
