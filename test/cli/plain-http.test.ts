import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';

// The sandbox listens on 127.0.0.1; http://0.0.0.0:PORT reaches it too on this machine, but names
// no loopback address, so mailroom cannot know the key stays here.
let sandbox: TestSandbox;
let port: string;
beforeAll(async () => {
  sandbox = await withSandbox();
  port = new URL(sandbox.baseUrl).port;
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const SEND = ['send', '--from', 'ops@example.com', '--to', 'ada@example.com', '--subject', 'Hi', '--html', '<p>Hi</p>', '--json'];
const warning = (url: string) => `mailroom: warning: the API key goes in clear text to ${url} (http:// to a host that is not this machine's loopback): use https://, or --allow-http to send it knowingly\n`;

describe('the API key over plain http:// to a host that is not loopback', () => {
  it('check refuses with exit 2 before sending anything, naming the way on; --allow-http lets it through silently', async () => {
    for (const base of [`http://0.0.0.0:${port}`, `http://[::]:${port}`]) {
      const r = await runInProcess(['check'], { env: { MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_BASE_URL: base } });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `mailroom: refusing to send the API key in clear text to ${base} (http:// to a host that is not this machine's loopback); nothing was sent\n` +
          `  for a sandbox on this machine use http://127.0.0.1:${port}; else use https://, or pass --allow-http to send it anyway\n`,
      );
    }
    const allowed = await runInProcess(['check', '--allow-http', '-q'], { env: { MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_BASE_URL: `http://0.0.0.0:${port}` } });
    expect(allowed).toMatchObject({ code: 0, stderr: '' });
  });

  it('send and batch warn once on stderr and go on; --allow-http silences it', async () => {
    const base = `http://0.0.0.0:${port}`;
    const env = { MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_BASE_URL: base };
    const send = await runInProcess(SEND, { env });
    expect(send.code).toBe(0);
    expect(send.stderr).toBe(warning(base));
    const lines = Array.from({ length: 120 }, (_, i) => JSON.stringify({ from: 'ops@example.com', to: `u${i}@example.com`, subject: 'Hi', html: '<p>Hi</p>' })).join('\n');
    const state = mkdtempSync(join(tmpdir(), 'mailroom-state-'));
    try {
      const batch = await runInProcess(['batch', '-', '-q'], { env: { ...env, MAILROOM_STATE_DIR: state }, input: lines });
      expect(batch.code).toBe(0);
      expect(batch.stderr).toBe(warning(base));
      expect(await sandbox.emails()).toHaveLength(121);
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
    const quiet = await runInProcess([...SEND, '--allow-http'], { env });
    expect(quiet).toMatchObject({ code: 0, stderr: '' });
  });

  it('doctor says so in a row and on stderr once', async () => {
    const base = `http://0.0.0.0:${port}`;
    const r = await runInProcess(['doctor', '--json'], { env: { MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_BASE_URL: base } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(warning(base));
    const checks = (JSON.parse(r.stdout) as { checks: { name: string; status: string; detail: string; fix?: string }[] }).checks;
    expect(checks.find((c) => c.name === 'base URL')).toMatchObject({ status: 'warn', detail: expect.stringContaining('clear text') });
  });

  it('loopback in any spelling, and https, send without a word', async () => {
    for (const base of [sandbox.baseUrl, `http://localhost:${port}`, `http://[::ffff:127.0.0.1]:${port}`]) {
      const r = await runInProcess(['check', '-q'], { env: { MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_BASE_URL: base } });
      expect(r, base).toMatchObject({ code: 0, stderr: '' });
    }
  });
});
