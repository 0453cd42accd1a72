import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordSandbox } from '../../src/config/sandbox-address.js';
import { runInProcess } from '../helpers/context.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';

let dir: string;
let a: TestSandbox;
let b: TestSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mailroom-sandbox-env-'));
  [a, b] = await Promise.all([withSandbox(), withSandbox()]);
});
afterAll(async () => {
  await Promise.all([a.close(), b.close()]);
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
/** A fresh state directory holding these records, as `mailroom sandbox` leaves them. */
function stateWith(...records: Array<{ sandbox: TestSandbox; key?: string; baseUrl?: string }>): Record<string, string> {
  const env = { MAILROOM_STATE_DIR: join(dir, `state-${++n}`), MAILROOM_CONFIG_DIR: join(dir, 'config'), NO_COLOR: '1' };
  for (const [i, r] of records.entries()) {
    const baseUrl = r.baseUrl ?? r.sandbox.baseUrl;
    recordSandbox(env, { port: Number(new URL(baseUrl).port) || 1 + i, baseUrl, apiKey: r.key ?? r.sandbox.apiKey, workspaceId: r.sandbox.workspaceId, pid: 123, startedAt: `2026-11-26T05:0${i}:00.000Z` });
  }
  return env;
}

describe('mailroom sandbox env', () => {
  it('prints the export line of the one running sandbox that takes its recorded key; says which on stderr', async () => {
    const r = await runInProcess(['sandbox', 'env'], { env: stateWith({ sandbox: a }) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`export MAILROOM_BASE_URL=${a.baseUrl} MAILROOM_API_KEY=${a.apiKey} MAILROOM_WORKSPACE=${a.workspaceId}\n`);
    expect(r.stderr).toBe(`mailroom: the sandbox at ${a.baseUrl} (pid 123, workspace ${a.workspaceId}); with eval, this shell's mailroom commands go there\n`);
    const json = await runInProcess(['sandbox', 'env', '--json'], { env: stateWith({ sandbox: a }) });
    expect(JSON.parse(json.stdout)).toEqual({ baseUrl: a.baseUrl, apiKey: a.apiKey, workspaceId: a.workspaceId });
  });

  it('points nowhere (exit 6, empty stdout) when nothing is recorded, when the recorded one is gone, or when its port answers with another key', async () => {
    const gone = await withSandbox();
    const goneUrl = gone.baseUrl;
    await gone.close();
    for (const env of [stateWith(), stateWith({ sandbox: a, baseUrl: goneUrl }), stateWith({ sandbox: b, key: 'sk_live_notTheKeyOfThisOne' })]) {
      const r = await runInProcess(['sandbox', 'env'], { env });
      expect(r.code).toBe(6);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^mailroom: no running sandbox recorded in .*: nothing to point this shell at\n {2}start one in another terminal: mailroom sandbox/);
    }
  });

  it('two running: exit 2 naming both, and --base-url picks one', async () => {
    const env = stateWith({ sandbox: a }, { sandbox: b });
    const both = await runInProcess(['sandbox', 'env'], { env });
    expect(both.code).toBe(2);
    expect(both.stdout).toBe('');
    expect(both.stderr).toContain('2 sandboxes are running: ');
    const picked = await runInProcess(['sandbox', 'env', '--base-url', b.baseUrl], { env });
    expect(picked.code).toBe(0);
    expect(picked.stdout).toContain(`MAILROOM_BASE_URL=${b.baseUrl} MAILROOM_API_KEY=${b.apiKey} `);
  });
});
