import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { batchWorld, entry, readNdjson, reportIndexes } from '../helpers/batch.js';

let sandbox: TestSandbox;
let dir: string;
let env: Record<string, string>;

batchWorld('mailroom-batch-e2e-', (world) => ({ sandbox, dir, env } = world));

describe('mailroom batch end to end', () => {
  it('sends the good entries of a mixed input, puts the bad ones in --failed byte for byte as read (the line that is not JSON too), exits 7; the fixed file goes back in', async () => {
    const lines = [
      JSON.stringify({ to: 'a@example.com', subject: 'ok', html: '<p>a</p>' }),
      '{"to": "b@example.com", "subject": ',
      JSON.stringify({ to: 'not-an-address', subject: 'bad', html: '<p>c</p>' }),
      JSON.stringify({ to: 'd@example.com', subject: 'ok', html: '<p>d</p>' }),
      JSON.stringify({ from: 'someone@unverified.test', to: 'e@example.com', subject: 'refused', html: '<p>e</p>' }),
      JSON.stringify({ template: 'welcome', to: 'f@example.com', variables: { name: 'F' } }),
    ];
    const input = join(dir, 'mixed.ndjson');
    writeFileSync(input, `${lines.join('\n')}\n`);
    const failed = join(dir, 'failed.ndjson');
    const report = join(dir, 'mixed-report.ndjson');
    const r = await runInProcess(['batch', input, '--from', 'ops@example.com', '--failed', failed, '--report', report], { env });
    expect(r.code).toBe(7);
    expect(JSON.parse(r.stdout)).toMatchObject({ total: 6, sent: 3, failed: 3, invalid: 2 });
    expect(r.stderr).toContain('mailroom: 3 of 6 emails failed');
    expect(r.stderr).toContain('entry 1 (line 2): not valid JSON');
    expect((await sandbox.emails()).map((e) => e.to).sort()).toEqual(['a@example.com', 'd@example.com', 'f@example.com']);
    const bad = readFileSync(failed, 'utf8');
    expect(bad).toBe(`${lines[1]}\n${lines[2]}\n${lines[4]}\n`);
    const why = readNdjson(report).filter((l) => l.error !== undefined);
    expect(why.map((l) => l.index).sort()).toEqual([1, 2, 4]);
    expect(why.find((l) => l.index === 2)).toMatchObject({ line: 3, error: expect.stringContaining('to must be an email address') });
    expect(why.find((l) => l.index === 4)).toMatchObject({ error: expect.stringContaining('not a verified') });
    expect(reportIndexes(report)).toMatchObject({ lines: 6, distinct: 6, withId: 3 });

    // Fix the file by hand and send it again with the same flags: all three go out, nothing else.
    const fixed = bad.replace('{"to": "b@example.com", "subject": ', '{"to": "b@example.com", "subject": "fixed", "html": "<p>b</p>"}').replace('not-an-address', 'c@example.com').replace('someone@unverified.test', 'ops@example.com');
    writeFileSync(join(dir, 'fixed.ndjson'), fixed);
    const again = await runInProcess(['batch', join(dir, 'fixed.ndjson'), '--from', 'ops@example.com', '--json'], { env });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ total: 3, sent: 3 });
    expect((await sandbox.emails()).map((e) => e.to).sort()).toEqual(['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com', 'e@example.com', 'f@example.com']);
  });

  it('reads piped stdin, applies flag defaults, and --dry-run sends nothing', async () => {
    const input = `${JSON.stringify({ to: 'a@example.com' })}\n${JSON.stringify({ to: 'b@example.com', subject: 'Own subject' })}\n`;
    writeFileSync(join(dir, 'body.html'), '<p>From a file</p>');
    const dry = await runInProcess(['batch', '--dry-run', '--from', 'ops@example.com', '--subject', 'Default', '--html-file', join(dir, 'body.html')], { env, input });
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ total: 2, sent: 0, dryRun: true, journal: null });
    expect(await sandbox.emails()).toHaveLength(0);

    const r = await runInProcess(['batch', '-', '--from', 'ops@example.com', '--subject', 'Default', '--html-file', join(dir, 'body.html'), '--group-by', 'spring', '--send-at', '+2h'], { env, input });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^Scheduled 2 of 2 emails in /m);
    const inbox = (await sandbox.emails()).sort((a, b) => a.to.localeCompare(b.to));
    expect(inbox.map((e) => [e.to, e.subject, e.html, e.status])).toEqual([
      ['a@example.com', 'Default', '<p>From a file</p>', 'SCHEDULED'],
      ['b@example.com', 'Own subject', '<p>From a file</p>', 'SCHEDULED'],
    ]);
  });

  it('dry run with an invalid entry: counts and the first errors, exit 2, nothing sent', async () => {
    const input = join(dir, 'dry.csv');
    writeFileSync(input, 'to,subject,html\na@example.com,Hi,<p>x</p>\nnope,Hi,<p>x</p>\n');
    const r = await runInProcess(['batch', input, '--from', 'ops@example.com', '--dry-run'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Dry run: 2 entries, 1 valid, 1 invalid; nothing sent.');
    expect(r.stderr).toContain('entry 1 (line 3): to must be an email address');
    expect(r.stderr).toContain('mailroom: 1 of 2 entries is invalid; nothing was sent');
    expect(await sandbox.emails()).toHaveLength(0);
  });

  it('counts of a thousand or more are written with a separator, every one of them (1,200 of 1,200)', async () => {
    const input = join(dir, 'many-invalid.ndjson');
    writeFileSync(input, Array.from({ length: 1200 }, (_, i) => JSON.stringify({ to: `nope-${i}`, subject: 'Hi', html: '<p>x</p>' })).join('\n') + '\n');
    const r = await runInProcess(['batch', input, '--from', 'ops@example.com', '--dry-run'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Dry run: 1,200 entries, 0 valid, 1,200 invalid; nothing sent.');
    expect(r.stderr).toContain('mailroom: 1,200 of 1,200 entries are invalid; nothing was sent');
    // Refused by the API (an unverified sender): the exit-7 line counts the same way.
    const refused = join(dir, 'many-refused.ndjson');
    writeFileSync(refused, Array.from({ length: 1200 }, (_, i) => JSON.stringify({ from: 'someone@unverified.test', to: `u${i}@example.com`, subject: 'Hi', html: '<p>x</p>' })).join('\n') + '\n');
    const sent = await runInProcess(['batch', refused, '--new-run'], { env });
    expect(sent.code).toBe(7);
    expect(sent.stderr).toContain('mailroom: 1,200 of 1,200 emails failed');
  });

  it('a bad input file or a bad key stops the run with the documented code and one line', async () => {
    const missing = await runInProcess(['batch', join(dir, 'nope.ndjson')], { env });
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr.trim().split('\n')[0]).toMatch(/^mailroom: cannot read .*nope.ndjson: no such file$/);
    const input = join(dir, 'two.ndjson');
    writeFileSync(input, `${JSON.stringify(entry(1))}\n${JSON.stringify(entry(2))}\n`);
    const r = await runInProcess(['batch', input, '--from', 'ops@example.com'], { env: { ...env, MAILROOM_API_KEY: 'sk_live_wrong' } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/mailroom: API 401/);
    expect(r.stderr).toContain('Stopped after sending 0 emails');
    expect(r.stderr).toContain('\n  2 entries read but not sent; the input was read no further.\n');
    expect(r.stderr).toMatch(/to finish, run again with the same flags: mailroom batch \S+two\.ndjson --resume \S+\.journal/);
    expect(r.stderr).not.toContain('sk_live_wrong');
    const journal = readFileSync(JSON.parse(r.stdout).journal, 'utf8');
    expect(journal).not.toContain(sandbox.apiKey);
    expect(journal).not.toContain('sk_live_wrong');
  });
});

describe('batch progress in a CI log (stderr not a terminal)', () => {
  /** A clock 3 seconds later at each look, so a short batch spans minutes; its timer never fires. */
  const slowClock = () => {
    let t = 0;
    return { now: () => (t += 3000), every: () => () => undefined };
  };
  const input = () => {
    const path = join(dir, 'ci.ndjson');
    writeFileSync(path, `${Array.from({ length: 300 }, (_, i) => JSON.stringify(entry(i))).join('\n')}\n`);
    return path;
  };

  it('prints plain progress lines at its pace, then the summary; -q prints none', async () => {
    const args = ['batch', input(), '--from', 'ops@example.com', '--size', '10', '--concurrency', '1'];
    const r = await runInProcess(args, { env, clock: slowClock() });
    expect(r.code).toBe(0);
    const progress = r.stderr.split('\n').filter((l) => l.startsWith('batch: '));
    expect(progress.length).toBeGreaterThan(2);
    expect(progress.length).toBeLessThanOrEqual(10);
    for (const line of progress) expect(line).toMatch(/^batch: \d+% \(\d+ of (about )?\d+\): \d+ sent, 0 failed, \d+\/s(, ETA [\dms ]+)?, [\dms ]+ elapsed$/);
    const percents = progress.map((l) => Number(/(\d+)%/.exec(l)![1]));
    for (let i = 1; i < percents.length; i++) expect(percents[i]! - percents[i - 1]!).toBeGreaterThanOrEqual(10);
    expect(r.stderr).toMatch(/batch: [^\n]*\n(.*\n)*Sent 300 of 300 emails in /);
    expect(r.stderr).not.toContain('\r');
    expect(r.stderr).not.toContain('\u001b');

    await sandbox.reset();
    // The same file again: sent on purpose (a plain new run of it would be refused).
    const quiet = await runInProcess([...args, '-q', '--new-run'], { env, clock: slowClock() });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
  });

  it('on a terminal the bar is drawn instead, no progress lines', async () => {
    const r = await runInProcess(['batch', input(), '--from', 'ops@example.com', '--size', '10', '--concurrency', '1', '--new-run'], { env, clock: slowClock(), tty: { stderr: true }, columns: 120 });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/^batch: /m);
    expect(r.stderr).toMatch(/\d+% \| \d+ sent/);
  });
});

it('a batch stopped by a timeout prints a resume command that raises --timeout, as its hint says', async () => {
  const slow = await withSandbox({ config: { faults: { latencyMs: 400 } } });
  try {
    const path = join(dir, 'slow.ndjson');
    writeFileSync(path, `${JSON.stringify(entry(0))}\n`);
    const r = await runInProcess(['batch', path, '--from', 'ops@example.com', '--timeout', '100', '--max-retries', '0'], { env: { ...env, MAILROOM_BASE_URL: slow.baseUrl, MAILROOM_API_KEY: slow.apiKey } });
    expect(r.code).toBe(6);
    const resume = /to finish, run again with the same flags: (mailroom .*)$/m.exec(r.stderr)?.[1] ?? '';
    expect(resume).toMatch(/ --timeout 30000( |$)/);
    expect(resume).not.toContain('--timeout 100');
  } finally {
    await slow.close();
  }
});
