import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv } from '../helpers/cli.js';
import { runInProcess } from '../helpers/context.js';
import { withSandbox } from '../helpers/sandbox.js';
import { exactlyOnce, ndjsonInput, sandboxEnv } from '../helpers/batch.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mailroom-batch-input-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A first run whose only request reached the API (entries 0..49 sent) but whose answer was lost:
 * nothing is recorded as done, yet those keys are used. Then the same sandbox (same port, same
 * state) without the fault, for the resumes.
 */
async function lostFirstRequest(name: string, extra: string[], input: string) {
  const data = join(dir, `${name}-state.json`);
  const lossy = await withSandbox({ dataFile: data, config: { faults: { lostRate: 1 } } });
  const port = Number(new URL(lossy.baseUrl).port);
  const env = cleanEnv(join(dir, 'cfg'), sandboxEnv(lossy, join(dir, 'state')));
  const journal = join(dir, `${name}.journal`);
  const first = await runInProcess(['batch', '-', '--resume', journal, '--concurrency', '1', '--max-retries', '0', '--from', 'ops@example.com', '--subject', 'Hi', ...extra], {
    env,
    input,
    configDir: join(dir, 'cfg'),
  });
  expect(first.code).toBe(6);
  await lossy.close();
  const healthy = await withSandbox({ dataFile: data, port, apiKey: lossy.apiKey });
  expect(await healthy.emails()).toHaveLength(50);
  return { sandbox: healthy, env, journal };
}

describe('mailroom batch: a resume reads the same input or refuses', () => {
  it('stdin with a line inserted among entries whose keys were used: exit 2, nothing sent; the original stream then finishes exactly once', async () => {
    const path = join(dir, 'stream.ndjson');
    ndjsonInput(path, 120);
    const original = readFileSync(path, 'utf8');
    const lines = original.trimEnd().split('\n');
    const changed = `${[...lines.slice(0, 10), JSON.stringify({ to: 'inserted@example.com', html: '<p>new</p>' }), ...lines.slice(10)].join('\n')}\n`;
    const { sandbox, env, journal } = await lostFirstRequest('stdin', [], original);
    try {
      const args = ['batch', '-', '--resume', journal, '--from', 'ops@example.com', '--subject', 'Hi'];
      const refused = await runInProcess(args, { env, input: changed, configDir: join(dir, 'cfg') });
      expect(refused.stderr).toMatch(/^mailroom: --resume: the input differs from the run being resumed .*entr/m);
      expect(refused.code).toBe(2);
      expect(await sandbox.emails()).toHaveLength(50);

      const shorter = await runInProcess(args, { env, input: `${lines.slice(0, 30).join('\n')}\n`, configDir: join(dir, 'cfg') });
      expect(shorter.code).toBe(2);
      expect(await sandbox.emails()).toHaveLength(50);

      const done = await runInProcess([...args, '--json'], { env, input: original, configDir: join(dir, 'cfg') });
      expect(done.code).toBe(0);
      expect(exactlyOnce(await sandbox.emails(), 120)).toEqual({ arrived: 120, distinctKeys: 120, distinctRecipients: 120 });
    } finally {
      await sandbox.close();
    }
  });

  it('a resume with another --send-at, --template or --from than the run: exit 2 naming the flag; the same resolved --send-at resumes', async () => {
    const path = join(dir, 'sched.ndjson');
    ndjsonInput(path, 120);
    const original = readFileSync(path, 'utf8');
    const { sandbox, env, journal } = await lostFirstRequest('sched', ['--send-at', '+2h'], original);
    try {
      const header = JSON.parse(readFileSync(journal, 'utf8').split('\n')[0]!) as { defaults: { sendAt?: string } };
      const sendAt = header.defaults.sendAt!;
      expect(sendAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      const base = ['batch', '-', '--resume', journal, '--subject', 'Hi'];
      for (const [flags, named] of [
        [['--from', 'ops@example.com', '--send-at', '+3h'], '--send-at'],
        [['--from', 'ops@example.com'], '--send-at'],
        [['--from', 'other@example.com', '--send-at', sendAt], '--from'],
      ] as const) {
        const r = await runInProcess([...base, ...flags], { env, input: original, configDir: join(dir, 'cfg') });
        expect(r.stderr).toMatch(new RegExp(`^mailroom: --resume .*${named} differs from the run being resumed`, 'm'));
        expect(r.code).toBe(2);
      }
      expect(await sandbox.emails()).toHaveLength(50);
      const ok = await runInProcess([...base, '--from', 'ops@example.com', '--send-at', sendAt, '--json'], { env, input: original, configDir: join(dir, 'cfg') });
      expect(ok.code).toBe(0);
      const emails = await sandbox.emails();
      expect(exactlyOnce(emails, 120)).toEqual({ arrived: 120, distinctKeys: 120, distinctRecipients: 120 });
      expect(new Set(emails.map((e) => e.sendAt))).toEqual(new Set([sendAt]));
    } finally {
      await sandbox.close();
    }
  });
});
