import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';

/**
 * `doctor` and `whoami` print their own report and exit with its code (README: 3 no key or a
 * rejected one, 6 API unreachable). The code must reach the caller through run(), as every other
 * command's does: a CI step `mailroom doctor && deploy` must stop when doctor fails.
 */
const state = mkdtempSync(join(tmpdir(), 'mailroom-doctor-exit-'));
afterAll(() => rmSync(state, { recursive: true, force: true }));
const noKey = { MAILROOM_STATE_DIR: state, MAILROOM_BASE_URL: 'http://127.0.0.1:9' };

describe('doctor and whoami exit codes', () => {
  it('doctor without a key exits 3, the report (JSON when piped) on stdout', async () => {
    const r = await runInProcess(['doctor'], { env: noKey });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, checks: expect.arrayContaining([expect.objectContaining({ name: 'API key', status: 'fail' })]) });
  });

  it('doctor with MAILROOM_API_KEY set but empty (a CI secret the job cannot read) says so in the check', async () => {
    const r = await runInProcess(['doctor', '--json'], { env: { ...noKey, MAILROOM_API_KEY: '' } });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, checks: expect.arrayContaining([expect.objectContaining({ name: 'API key', status: 'fail', detail: 'none: MAILROOM_API_KEY is set but empty (in CI: a secret this job cannot read?)' })]) });
  });

  it('whoami without a key exits 3', async () => {
    const r = await runInProcess(['whoami'], { env: noKey });
    expect(r.code).toBe(3);
  });

  it('doctor with a key and an API that cannot be reached exits 6', async () => {
    const r = await runInProcess(['doctor', '--max-retries', '0'], { env: { ...noKey, MAILROOM_API_KEY: 'sk_live_doctorexitdoctorexit' } });
    expect(r.code).toBe(6);
  });
});
