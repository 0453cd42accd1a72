import { afterEach, describe, expect, test, vi } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/run.js';
import { fakeContext } from '../helpers/context.js';

afterEach(() => vi.restoreAllMocks());

/** Resolves with what `probe` finds once `stream` has written it (probed after each chunk). */
function until<T>(stream: NodeJS.EventEmitter, probe: () => T | undefined): Promise<T> {
  return new Promise((resolve) => {
    const check = () => {
      const value = probe();
      if (value === undefined) return;
      stream.off('data', check);
      resolve(value);
    };
    stream.on('data', check);
    check();
  });
}

describe("the sandbox's log lines", () => {
  test('`mailroom sandbox` writes them to the command\'s own (guarded) stderr, never to process.stderr', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-sblog-'));
    const data = join(dir, 'gone', 'state.json');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'gone'));
    const processStderr = vi.spyOn(process.stderr, 'write');
    const stop = new AbortController();
    const fake = fakeContext({ signal: stop.signal });
    const done = run(['sandbox', '--port', '0', '--json', '--data', data], fake.ctx);
    const ready = await until(fake.ctx.io.out, () => fake.stdout().split('\n').find((l) => l.startsWith('{')));
    const { baseUrl, apiKey } = JSON.parse(ready) as { baseUrl: string; apiKey: string };
    // The data file's folder goes: the next change cannot be saved, and the sandbox says so.
    rmSync(join(dir, 'gone'), { recursive: true, force: true });
    const res = await fetch(`${baseUrl}/v1/emails`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ from: 'a@example.com', to: 'b@example.com', subject: 's', html: '<p>h</p>' }),
    });
    expect(res.status).toBe(500);
    stop.abort();
    await done;
    rmSync(dir, { recursive: true, force: true });
    expect(fake.stderr()).toMatch(/^sandbox: cannot save the data file: ENOENT: no such file or directory/m);
    expect(processStderr.mock.calls.map((c) => String(c[0])).filter((s) => s.includes('sandbox:'))).toEqual([]);
  });
});
