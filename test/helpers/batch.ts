import { readFileSync, writeFileSync } from 'node:fs';
import { recordingProxy } from './recording-proxy.js';
import type { InboxEmail, TestSandbox } from './sandbox.js';

export const sandboxEnv = (sandbox: TestSandbox, stateDir: string): Record<string, string> => ({
  MAILROOM_BASE_URL: sandbox.baseUrl,
  MAILROOM_API_KEY: sandbox.apiKey,
  MAILROOM_STATE_DIR: stateDir,
});

export const recipient = (i: number) => `user${i}@example.com`;

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

export async function reset(sandbox: TestSandbox): Promise<void> {
  await sandbox.reset();
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
    close: () => proxy.close(),
  };
}
