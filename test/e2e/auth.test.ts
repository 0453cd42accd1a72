import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';

let sandbox: TestSandbox;
let dir: string;
beforeAll(async () => {
  sandbox = await withSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => {
  dir = tempConfigDir();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const storeFile = () => join(dir, 'config.json');
const stored = () => JSON.parse(readFileSync(storeFile(), 'utf8')) as { profiles: Record<string, Record<string, string>> };

// A hidden prompt on a real terminal; every other login/logout/profiles case runs in-process in
// test/cli/auth.test.ts.
describe('mailroom login', () => {
  it('asks with a hidden prompt on a real terminal and never echoes the key', async () => {
    const r = await runCli(['login', '--profile', 'tty', '--base-url', sandbox.baseUrl, '--no-color'], {
      configDir: dir,
      tty: true,
      input: [{ after: 'SMASHSEND API key', send: `${sandbox.apiKey}\r` }],
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('SMASHSEND API key (input hidden):');
    expect(r.stdout).toContain('Logged in to profile "tty" as Sandbox key.');
    expect(r.stdout).toMatch(/^key\s+sk_live_…\w{4}$/m);
    expect(r.stdout).not.toContain(sandbox.apiKey);
    expect(stored().profiles.tty?.apiKey).toBe(sandbox.apiKey);
  });
});
