import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDurableAppender, type AppendHandle } from '../../src/output/files.js';
import { createWebhook } from '../../src/api/webhooks.js';
import { readErrorBody } from '../../src/transport/http-errors.js';
import { redactText, resetSecrets } from '../../src/secrets.js';
import type { Transport } from '../../src/transport/index.js';

describe('the durable appender behind the listener journal (a 200 means the whole delivery is on disk)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mailroom-appender-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A real file whose writes store at most `max` bytes each, and fail once `failAfter` bytes are in. */
  const disk = (max: number, failAfter = Infinity) => async (path: string, flags: string, mode: number): Promise<AppendHandle> => {
    const real = await open(path, flags, mode);
    let written = 0;
    return {
      stat: (() => real.stat()) as AppendHandle['stat'],
      datasync: () => real.datasync(),
      truncate: (len?: number) => real.truncate(len),
      close: () => real.close(),
      write: (async (buf: Buffer, offset: number, length: number) => {
        if (written >= failAfter) throw Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' });
        const n = Math.min(length, max, failAfter - written);
        written += n;
        return real.write(buf, offset, n);
      }) as AppendHandle['write'],
    };
  };

  it('a short write goes on with the rest: every line is whole', async () => {
    const path = join(dir, 'j.ndjson');
    const file = await openDurableAppender(path, 0o600, disk(7));
    await file.append('{"a":"first delivery"}\n{"b":"second"}\n');
    await file.close();
    expect(readFileSync(path, 'utf8')).toBe('{"a":"first delivery"}\n{"b":"second"}\n');
  });

  it('a write that fails halfway is cut back off: the file keeps only whole lines, and later appends read', async () => {
    const path = join(dir, 'j.ndjson');
    const file = await openDurableAppender(path, 0o600, disk(1024, 30));
    await file.append('{"n":1}\n');
    await expect(file.append('{"n":2,"body":"a delivery longer than the room left"}\n')).rejects.toThrow('ENOSPC');
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n');
    await file.close();
  });
});

describe('secrets a server puts in an error answer', () => {
  beforeEach(() => resetSecrets());

  it('the error field and docsUrl are masked like the message', () => {
    const body = readErrorBody({ statusCode: 401, error: 'invalid key sk_live_abcdefghijklmnop1234', message: 'no', docsUrl: 'https://docs.example.com/?key=sk_live_abcdefghijklmnop1234' });
    expect(JSON.stringify(body)).not.toContain('abcdefghijklmnop1234');
    expect(body.error).toBe('invalid key sk_live_…1234');
  });

  it("a webhook token of the caller's own is held once it is sent, whatever its shape", async () => {
    const failing = { request: () => Promise.reject(new Error('down')) } as unknown as Transport;
    await createWebhook(failing, { url: 'https://h.example.com/', events: ['CONTACT_CREATED'], token: 'my-own-token-xyz12' }).catch(() => undefined);
    expect(redactText('server says: bad token my-own-token-xyz12')).not.toContain('my-own-token-xyz12');
  });
});
