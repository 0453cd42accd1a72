import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCsvItems } from '../../src/input/csv.js';
import { tempConfigDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/context.js';

// Names every plain object inherits: looked up by a name the user typed, they must count as absent.
const INHERITED = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];

describe('names looked up as own entries only', () => {
  it.each(INHERITED)('--profile %s with no such stored profile: exit 2, nothing sent, as for any unknown name', async (name) => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { apiKey: 'sk_live_defaultdefault1' } } }));
    // Port 9 has no listener: a request would exit 6.
    const env = { MAILROOM_API_KEY: 'sk_live_envenvenvenv1', MAILROOM_BASE_URL: 'http://127.0.0.1:9' };
    for (const args of [['check', '--profile', name], ['whoami', '--profile', name]]) {
      const r = await runInProcess(args, { configDir: dir, env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`no profile "${name}" in the config store (profiles: default)`);
    }
    const byEnv = await runInProcess(['check'], { configDir: dir, env: { ...env, MAILROOM_PROFILE: name } });
    expect(byEnv.code).toBe(2);
  });

  it('a hand-written "__proto__" profile is an ordinary entry: it neither hides nor lends profiles', async () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: JSON.parse('{"__proto__": {"apiKey": "sk_live_protoprotoproto1"}, "work": {"workspace": "wrk_w"}}') }));
    const list = await runInProcess(['profiles', '--json'], { configDir: dir });
    expect(list.code).toBe(0);
    expect((JSON.parse(list.stdout) as { items: { name: string }[] }).items.map((p) => p.name).sort()).toEqual(['__proto__', 'work']);
    // "apiKey" would be found through the prototype if the store's object had taken it as one.
    const inherited = await runInProcess(['check', '--profile', 'apiKey'], { configDir: dir });
    expect(inherited.code).toBe(2);
    expect(inherited.stderr).toContain('no profile "apiKey"');
    // A write keeps it and the others.
    const set = await runInProcess(['config', 'set', 'workspace', 'wrk_x', '--profile', 'work'], { configDir: dir });
    expect(set.code).toBe(0);
    const stored = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: object };
    expect(Object.keys(stored.profiles).sort()).toEqual(['__proto__', 'work']);
  });

  it('an inherited name is not a pointer to another command', async () => {
    const r = await runInProcess(['constructor']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("mailroom: unknown command 'constructor'\n");
  });

  it('a CSV settings cell "constructor" is not true or false', async () => {
    const items: { line: number; error?: string }[] = [];
    const lines = (async function* () {
      yield 'to,subject,html,settings.trackClicks\na@example.com,Hi,<p>x</p>,constructor\n';
    })();
    for await (const item of readCsvItems(lines)) items.push(item as { line: number; error?: string });
    expect(items[0]).toMatchObject({ line: 2, error: expect.stringMatching(/settings.trackClicks: "constructor" is not true or false/) });
  });
});
