import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInProcess } from '../helpers/context.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sandbox: TestSandbox;
let env: Record<string, string>;
let dir: string;

beforeAll(async () => {
  sandbox = await withSandbox();
  dir = mkdtempSync(join(tmpdir(), 'mailroom-keys-'));
  env = { MAILROOM_BASE_URL: sandbox.baseUrl, MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_STATE_DIR: join(dir, 'state') };
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => sandbox.reset());

describe('the CLI sends every key it is given, "__proto__" too, and prints it back', () => {
  it('send --var, --vars and --property; sandbox email --json shows them', async () => {
    const r = await runInProcess(['send', '--template', 'welcome', '--to', 'ada@example.com', '--var', '__proto__=x', '--vars', '{"name":"Ada"}'], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const raw = await runInProcess(['send', '--from', 'ops@example.com', '--to', 'bob@example.com', '--subject', 'Hi', '--html', '<p>Hi</p>', '--property', '__proto__=p'], { env });
    expect(raw.code).toBe(0);
    const [ada, bob] = await sandbox.emails();
    expect(JSON.stringify(ada!.variables)).toBe('{"name":"Ada","__proto__":"x"}');
    expect(JSON.stringify(bob!.contactProperties)).toBe('{"__proto__":"p"}');
    const shown = await runInProcess(['sandbox', 'email', ada!.id, '--json'], { env });
    expect(JSON.stringify(JSON.parse(shown.stdout).variables)).toBe('{"name":"Ada","__proto__":"x"}');
  });

  it('batch: a CSV column var.__proto__ and a JSON entry with "__proto__" in variables', async () => {
    writeFileSync(join(dir, 'in.csv'), 'to,var.__proto__,var.name\nada@example.com,x,Ada\n');
    const csv = await runInProcess(['batch', join(dir, 'in.csv'), '--template', 'welcome'], { env });
    expect(csv.code).toBe(0);
    writeFileSync(join(dir, 'in.ndjson'), '{"to":"bob@example.com","template":"welcome","variables":{"__proto__":"y"}}\n');
    const nd = await runInProcess(['batch', join(dir, 'in.ndjson')], { env });
    expect(nd.code).toBe(0);
    const byTo = Object.fromEntries((await sandbox.emails()).map((e) => [e.to, JSON.stringify(e.variables)]));
    expect(byTo).toEqual({ 'ada@example.com': '{"__proto__":"x","name":"Ada"}', 'bob@example.com': '{"__proto__":"y"}' });
  });
});

describe('a header field with a Unicode line break: exit 2, nothing sent', () => {
  it.each([['U+2028', '\u2028'], ['U+0085', '\u0085']])('%s in --subject', async (code, ch) => {
    const r = await runInProcess(['send', '--from', 'ops@example.com', '--to', 'ada@example.com', '--subject', `Hi${ch}Bcc: eve@example.com`, '--html', '<p>Hi</p>'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`must not contain control characters (${code} at index 2)`);
    expect(await sandbox.emails()).toEqual([]);
  });
});
