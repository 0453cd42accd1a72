import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { recordingProxy } from './recording-proxy.js';
import { withSandbox, type InboxEmail, type TestSandbox } from './sandbox.js';

export const sandboxEnv = (sandbox: TestSandbox, stateDir: string): Record<string, string> => ({
  MAILROOM_BASE_URL: sandbox.baseUrl,
  MAILROOM_API_KEY: sandbox.apiKey,
  MAILROOM_STATE_DIR: stateDir,
});

export const recipient = (i: number) => `user${i}@example.com`;

/** Entry `i` of a batch: its own recipient, subject and HTML. */
export const entry = (i: number) => ({ to: recipient(i), subject: `Hello ${i}`, html: `<p>Hello ${i}</p>` });

export interface BatchWorld {
  sandbox: TestSandbox;
  /** A temp directory of the file's own; the CLI's state (journals) goes in `state/` under it. */
  dir: string;
  env: Record<string, string>;
}

/**
 * The hooks a batch test file needs: one sandbox and temp directory for the file (closed and removed
 * after it), the env that points the CLI at both, and before each test an empty sandbox and no
 * journal (a test that means a re-run makes it itself; otherwise a test whose entries begin as an
 * earlier test's would be refused as a re-run of it). `ready` receives them once made, for the
 * file's own set-up.
 */
export function batchWorld(prefix: string, ready: (world: BatchWorld) => void): void {
  let world: BatchWorld | undefined;
  beforeAll(async () => {
    const sandbox = await withSandbox();
    const dir = mkdtempSync(join(tmpdir(), prefix));
    world = { sandbox, dir, env: sandboxEnv(sandbox, join(dir, 'state')) };
    ready(world);
  });
  afterAll(async () => {
    await world?.sandbox.close();
    if (world) rmSync(world.dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await world!.sandbox.reset();
    rmSync(join(world!.dir, 'state'), { recursive: true, force: true });
  });
}

/** A batch world whose CLI talks through a counting proxy, and whose state directory is emptied before each test. */
export interface RerunWorld extends BatchWorld {
  proxy: CountingProxy;
  /** The CLI's state directory (`<dir>/state`); its journals are in `batches/` under it. */
  state: string;
}

/**
 * The hooks of the files that run a batch, stop it and run it again (re-run refusal, journal
 * housekeeping): the sandbox answers after 5 ms, so that a Ctrl-C lands with most of the input still
 * unsent; requests are counted; and each test starts with no journal from the one before.
 */
export function rerunWorld(prefix: string, ready: (world: RerunWorld) => void): void {
  let world: RerunWorld | undefined;
  beforeAll(async () => {
    const sandbox = await withSandbox({ config: { faults: { latencyMs: 5 } } });
    const proxy = await countingProxy(sandbox);
    const dir = mkdtempSync(join(tmpdir(), prefix));
    const state = join(dir, 'state');
    world = { sandbox, proxy, dir, state, env: { ...sandboxEnv(sandbox, state), MAILROOM_BASE_URL: proxy.baseUrl } };
    ready(world);
  });
  afterAll(async () => {
    await world?.proxy.close();
    await world?.sandbox.close();
    if (world) rmSync(world.dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await world!.sandbox.reset();
    rmSync(world!.state, { recursive: true, force: true });
  });
}

export function ndjsonInput(path: string, count: number): void {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) lines.push(JSON.stringify({ to: recipient(i), html: `<p>Hello ${i}</p>` }));
  writeFileSync(path, `${lines.join('\n')}\n`);
}

export function readNdjson(path: string): Array<Record<string, unknown>> {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Each of `count` recipients arrived exactly once, each under its own idempotency key. */
export function exactlyOnce(emails: InboxEmail[], count: number): { arrived: number; distinctKeys: number; distinctRecipients: number } {
  void count;
  return {
    arrived: emails.length,
    distinctKeys: new Set(emails.map((e) => e.idempotencyKey)).size,
    distinctRecipients: new Set(emails.map((e) => e.to)).size,
  };
}

/** The report has one line per input index 0..count-1, and each succeeded one has an id. */
export function reportIndexes(path: string): { lines: number; distinct: number; min: number; max: number; withId: number } {
  const lines = readNdjson(path);
  const idx = lines.map((l) => l.index as number);
  return { lines: lines.length, distinct: new Set(idx).size, min: Math.min(...idx), max: Math.max(...idx), withId: lines.filter((l) => typeof l.id === 'string').length };
}

export interface CountingProxy {
  baseUrl: string;
  /** Resolves once `n` more batch requests (POST /v1/emails/batch) have reached the API, counted from this call. */
  batches(n: number): Promise<void>;
  /** Batch requests that reached the API so far. */
  requests(): number;
  /** Resolves once every request forwarded so far has been answered by the sandbox (a killed run's last ones too). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The sandbox behind a proxy that counts the batch requests passing through: a test that stops a run
 * part-way (a kill, a Ctrl-C) awaits the count instead of polling the journal with tiny sleeps.
 */
export async function countingProxy(sandbox: TestSandbox): Promise<CountingProxy> {
  let count = 0;
  const waiters: Array<{ at: number; resolve: () => void }> = [];
  const proxy = await recordingProxy(sandbox.baseUrl, (req) => {
    if (req.method === 'POST' && req.path === '/v1/emails/batch') {
      count += 1;
      for (const w of waiters.filter((w) => count >= w.at)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      // Keep no bodies: thousands of emails pass through.
      proxy.seen.length = 0;
    }
    return undefined;
  });
  return {
    baseUrl: proxy.baseUrl,
    batches: (n) => new Promise<void>((resolve) => waiters.push({ at: count + n, resolve })),
    requests: () => count,
    settled: () => proxy.settled(),
    close: () => proxy.close(),
  };
}
