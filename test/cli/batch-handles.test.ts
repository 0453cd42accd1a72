import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess, startInProcess } from '../helpers/context.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { batchWorld, entry, ndjsonInput } from '../helpers/batch.js';

let sandbox: TestSandbox;
let dir: string;
let env: Record<string, string>;
batchWorld('mailroom-batch-handles-', (world) => ({ sandbox, dir, env } = world));

/** Files this process holds open (Linux: /proc/self/fd), by path. */
const openFiles = () =>
  readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      return [readlinkSync(`/proc/self/fd/${fd}`)];
    } catch {
      return [];
    }
  });

const onLinux = existsSync('/proc/self/fd');

describe.runIf(onLinux)('batch closes its input file when it stops early, not when the garbage collector finds it', () => {
  it('Ctrl-C part-way through a file (NDJSON and CSV)', async () => {
    const ndjson = join(dir, 'stopped.ndjson');
    ndjsonInput(ndjson, 3000);
    const csv = join(dir, 'stopped.csv');
    writeFileSync(csv, `to,subject,html\n${Array.from({ length: 3000 }, (_, i) => `${entry(i).to},Hi,<p>${i}</p>`).join('\n')}\n`);
    for (const input of [ndjson, csv]) {
      await sandbox.reset();
      const cmd = startInProcess(['batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--size', '1', '--concurrency', '1'], { env });
      while ((await sandbox.emails()).length < 3) await new Promise((r) => setTimeout(r, 20));
      expect((await cmd.stop()).code).toBe(130);
      expect(openFiles().filter((f) => f === input), input).toEqual([]);
    }
  });

  it("stopped before reading began, a resume refused part-way (stdin's journal, a changed file), and a bad key stopping the run", async () => {
    // State directories of their own: these entries begin as the other tests' do, and a new run of
    // entries an earlier run sent is refused before it reads on.
    const own = (name: string) => ({ ...env, MAILROOM_STATE_DIR: join(dir, name) });
    const early = join(dir, 'early.ndjson');
    ndjsonInput(early, 50);
    const stoppedAtOnce = startInProcess(['batch', early, '--from', 'ops@example.com', '--subject', 'Hi'], { env: own('state-early') });
    expect((await stoppedAtOnce.stop()).code).toBe(130);
    expect(openFiles()).not.toContain(early);

    const input = join(dir, 'changed.ndjson');
    ndjsonInput(input, 200);
    const journal = join(dir, 'changed.journal');
    const first = await runInProcess(['batch', '-', '--from', 'ops@example.com', '--subject', 'Hi', '--size', '10', '--resume', journal], { env: own('state-changed'), input: readFileSync(input, 'utf8') });
    expect(first.code).toBe(0);
    // A new run of the file stdin carried: refused, after reading it to its end to say how much is the same.
    const again = await runInProcess(['batch', input, '--from', 'ops@example.com', '--subject', 'Hi'], { env: own('state-changed') });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('its 200 entries are the ones run');
    expect(openFiles()).not.toContain(input);
    // Entry 150 changed: the file is read (its hashes checked) up to there, then the resume is refused.
    const lines = readFileSync(input, 'utf8').trimEnd().split('\n');
    lines[150] = JSON.stringify({ to: 'changed@example.com', html: '<p>changed</p>' });
    writeFileSync(input, `${lines.join('\n')}\n`);
    const refused = await runInProcess(['batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--size', '10', '--resume', journal], { env: own('state-changed') });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('is not the entry the journal recorded there');
    expect(openFiles()).not.toContain(input);

    const other = join(dir, 'bad-key.ndjson');
    ndjsonInput(other, 500);
    const badKey = await runInProcess(['batch', other, '--from', 'ops@example.com', '--subject', 'Hi', '--size', '1'], { env: { ...env, MAILROOM_API_KEY: 'sk_live_not_a_key_at_all' } });
    expect(badKey.code).toBe(3);
    expect(openFiles()).not.toContain(other);
  });
});
