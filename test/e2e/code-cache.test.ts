import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';

// bin/mailroom.js runs dist/fast/<command>.js with V8's code cache (scripts/build.mjs, `runFast`):
// what a run compiled is kept in MAILROOM_CACHE_DIR for the next one. These tests hold what a user
// relies on: the command behaves the same with or without it, whatever state the cache is in.
let dir: string;
let input: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mailroom-code-cache-'));
  input = join(dir, 'in.ndjson');
  writeFileSync(input, `${[1, 2, 3].map((n) => JSON.stringify({ from: 'Ops <ops@example.com>', to: `user${n}@customer.test`, subject: `Order ${n}`, html: `<p>Order ${n}</p>` })).join('\n')}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const batch = (cache: string) => runCli(['batch', input, '--dry-run', '--json'], { env: { MAILROOM_CACHE_DIR: cache, MAILROOM_STATE_DIR: join(dir, 'state') } });
/** A dry run's summary without what differs between any two runs: its times and its run id. */
const withoutTimes = (s: string) => s.replace(/"(durationMs|emailsPerSecond)": [\d.]+/g, '"$1": 0').replace(/"runId": "[0-9a-f]+"/, '"runId": ""');
const cacheFiles = (cache: string) => readdirSync(cache).filter((name) => !name.endsWith('.tmp'));

describe('the fast bundles\' code cache', () => {
  it('is written by the first run and read, not written again, by the next; the output is the same', async () => {
    const cache = join(dir, 'cache-a');
    const first = await batch(cache);
    expect(first.code, first.stderr).toBe(0);
    const files = cacheFiles(cache);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(new RegExp(`^batch-[0-9a-f]{16}-${process.version.replace(/\./g, '\\.')}-${process.arch}\\.v8cache$`));
    const file = join(cache, files[0]!);
    const written = statSync(file);
    expect(written.size).toBeGreaterThan(100_000);
    expect(written.mode & 0o777).toBe(0o600);
    expect(statSync(cache).mode & 0o777).toBe(0o700);

    const second = await batch(cache);
    expect(second.code, second.stderr).toBe(0);
    expect(withoutTimes(second.stdout)).toBe(withoutTimes(first.stdout));
    expect(second.stderr).toBe(first.stderr);
    // V8 took it: a refused cache is written anew.
    expect(statSync(file).mtimeMs).toBe(written.mtimeMs);
    expect(statSync(file).ino).toBe(written.ino);
  });

  it('a damaged cache file is compiled past and replaced; another build\'s cache is removed', async () => {
    const cache = join(dir, 'cache-b');
    const clean = await batch(cache);
    const [name] = cacheFiles(cache);
    writeFileSync(join(cache, name!), Buffer.alloc(4096, 7));
    const stale = name!.replace(/^batch-[0-9a-f]{16}/, 'batch-0000000000000000');
    writeFileSync(join(cache, stale), 'an older build');
    const check = join(cache, name!.replace(/^batch-/, 'check-'));
    writeFileSync(check, 'another command');

    const run = await batch(cache);
    expect(run.code, run.stderr).toBe(0);
    expect(withoutTimes(run.stdout)).toBe(withoutTimes(clean.stdout));
    expect(run.stderr).toBe(clean.stderr);
    expect(cacheFiles(cache).sort()).toEqual([name!, check.slice(cache.length + 1)].sort());
    expect(readFileSync(join(cache, name!)).equals(Buffer.alloc(4096, 7))).toBe(false);
    expect(statSync(join(cache, name!)).size).toBeGreaterThan(100_000);
  });

  it('a cache directory that cannot be made or written costs nothing but the time: same output, same exit code, nothing on stderr', async () => {
    const clean = await batch(join(dir, 'cache-c'));
    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, '');
    const run = await batch(join(blocker, 'cache'));
    expect(run.code).toBe(0);
    expect(withoutTimes(run.stdout)).toBe(withoutTimes(clean.stdout));
    expect(run.stderr).toBe(clean.stderr);
  });

  it('code that others may have written is not run: a cache file others can write is replaced, a directory others can write is left alone', async () => {
    const cache = join(dir, 'cache-e');
    const clean = await batch(cache);
    const [name] = cacheFiles(cache);
    const file = join(cache, name!);
    chmodSync(file, 0o666);
    const before = statSync(file);
    const run = await batch(cache);
    expect(run.code, run.stderr).toBe(0);
    expect(withoutTimes(run.stdout)).toBe(withoutTimes(clean.stdout));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(file).ino).not.toBe(before.ino);

    chmodSync(cache, 0o777);
    writeFileSync(file, Buffer.alloc(4096, 9));
    const planted = statSync(file);
    const again = await batch(cache);
    expect(again.code, again.stderr).toBe(0);
    expect(withoutTimes(again.stdout)).toBe(withoutTimes(clean.stdout));
    expect(again.stderr).toBe(clean.stderr);
    expect(readFileSync(file).equals(Buffer.alloc(4096, 9))).toBe(true);
    expect(statSync(file).ino).toBe(planted.ino);
    expect(cacheFiles(cache)).toEqual([name]);
  });

  it('is written only by a run that did its job: a run that failed leaves none, the next good one writes it', async () => {
    const cache = join(dir, 'cache-f');
    const failed = await runCli(['batch', join(dir, 'missing.ndjson'), '--dry-run'], { env: { MAILROOM_CACHE_DIR: cache } });
    expect(failed.code).toBe(2);
    expect(() => readdirSync(cache)).toThrow();
    expect((await batch(cache)).code).toBe(0);
    expect(cacheFiles(cache)).toHaveLength(1);
  });

  it('`check` keeps its own, and answers the same from it (its agent sets a V8 flag, undone before the cache is written)', async () => {
    const sandbox = await withSandbox();
    try {
      const cache = join(dir, 'cache-d');
      const env = { MAILROOM_CACHE_DIR: cache, MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_BASE_URL: sandbox.baseUrl };
      const first = await runCli(['check', '--json'], { env });
      expect(first.code, first.stderr).toBe(0);
      const files = cacheFiles(cache);
      expect(files).toEqual([expect.stringMatching(/^check-[0-9a-f]{16}-/)]);
      const written = statSync(join(cache, files[0]!));
      const second = await runCli(['check', '--json'], { env });
      expect(second.code).toBe(0);
      expect(second.stdout).toBe(first.stdout);
      expect(second.stderr).toBe(first.stderr);
      expect(statSync(join(cache, files[0]!)).ino).toBe(written.ino);
    } finally {
      await sandbox.close();
    }
  });
});
