import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { startApp } from '../webhook/helpers/test-app.js';
import { recordJournal, REPLAY_TOKEN as token } from '../webhook/helpers/replay-journal.js';
import { cliEnv, spawnCli } from '../helpers/cli.js';

// What only a process shows: a closed stdout. Replay's behaviour runs in-process in test/cli/webhooks-replay.test.ts.

describe('webhooks replay', () => {
  let sandbox: TestSandbox;
  const journal = join(mkdtempSync(join(tmpdir(), 'mailroom-replay-')), 'journal.ndjson');
  let sent: string[] = [];

  beforeAll(async () => {
    sandbox = await withSandbox();
    ({ sent } = await recordJournal(sandbox, journal));
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('keeps replaying, without a stack trace, when stdout is closed (replay | head -1)', async () => {
    const app = await startApp(token);
    try {
      const child = spawnCli(['webhooks', 'replay', '--journal', journal, '--forward-to', app.url], { env: cliEnv({ MAILROOM_WEBHOOK_TOKEN: token }), stdio: 'pipe' });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.stdout.once('data', () => child.stdout.destroy());
      const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
      expect(stderr).not.toMatch(/EPIPE|node:events/);
      expect(code).toBe(0);
      expect(app.received.map((r) => r.body.toString())).toEqual(sent);
    } finally {
      await app.close();
    }
  });
});
