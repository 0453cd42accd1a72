import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess, startInProcess } from '../helpers/context.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { ndjsonInput, rerunWorld, type CountingProxy } from '../helpers/batch.js';

let sandbox: TestSandbox;
let proxy: CountingProxy;
let dir: string;
let env: Record<string, string>;
let state: string;

rerunWorld('mailroom-batch-rerun-', (w) => {
  ({ sandbox, proxy, dir, state, env } = w);
});

const args = (input: string, ...more: string[]) => ['batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--concurrency', '1', '--size', '10', ...more];

/** Starts a batch in-process and presses Ctrl-C once `after` of its requests reached the API. */
async function interrupted(input: string, after: number) {
  const cmd = startInProcess(args(input), { env });
  await proxy.batches(after);
  const r = await cmd.stop();
  expect(r.code).toBe(130);
  return r;
}

const journalOf = (stderr: string) => /journal: (\S+\.journal)/.exec(stderr)?.[1];

describe('a new run of an input an earlier run sent', () => {
  it('Ctrl-C after some emails, then the same command again: refused (exit 2, nothing sent), naming the journal, what it sent, --resume and --new-run', async () => {
    const N = 500;
    const input = join(dir, 'big.ndjson');
    ndjsonInput(input, N);
    const first = await interrupted(input, 3);
    const journal = journalOf(first.stderr)!;
    expect(journal).toBeDefined();
    const sentBefore = (await sandbox.emails()).length;
    expect(sentBefore).toBeGreaterThan(0);
    expect(sentBefore).toBeLessThan(N);

    const again = await runInProcess(args(input), { env });
    expect(again.code).toBe(2);
    expect(again.stdout).toBe('');
    const lines = again.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      new RegExp(`^mailroom: ${input.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} was already sent to ${proxy.baseUrl} with this API key: the journal ${journal} records ${sentBefore} emails sent \\(run \\w+ of .+, stopped before the end, last written .+\\); a new run would send them again, so nothing was sent$`),
    );
    expect(again.stderr).toContain(`to finish that run, sending only what it did not: mailroom batch ${input} --resume ${journal} --from ops@example.com --subject Hi`);
    expect(again.stderr).toContain('to send every entry again on purpose: add --new-run');
    expect((await sandbox.emails()).length).toBe(sentBefore);

    // The way on that the refusal names finishes the run: every recipient exactly once.
    const resumed = await runInProcess([...args(input), '--resume', journal, '--json'], { env });
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ total: N, failed: 0, skipped: sentBefore, sent: N - sentBefore });
    const emails = await sandbox.emails();
    expect(emails).toHaveLength(N);
    expect(new Set(emails.map((e) => e.to)).size).toBe(N);

    // Finished or not, a third plain run is refused too; --new-run sends it all again, on purpose, and says so.
    const third = await runInProcess(args(input), { env });
    expect(third.code).toBe(2);
    expect(third.stderr).toContain(`records ${N} emails sent`);
    expect(third.stderr).toMatch(/, finished, last written /);
    expect(third.stderr).toContain(`that run finished: resuming it sends nothing more (mailroom batch ${input} --resume ${journal} `);
    const onPurpose = await runInProcess([...args(input), '--new-run', '--json'], { env });
    expect(onPurpose.code).toBe(0);
    expect(JSON.parse(onPurpose.stdout)).toMatchObject({ total: N, sent: N });
    expect(onPurpose.stderr).toContain(`mailroom: note: --new-run: sending again what ${journal} records as sent (${N})`);
    expect(await sandbox.emails()).toHaveLength(2 * N);
  });

  it('finds a journal kept elsewhere (--resume <new file>) too; --new-run with an existing --resume journal is refused', async () => {
    const input = join(dir, 'small.ndjson');
    ndjsonInput(input, 30);
    const journal = join(dir, 'kept-elsewhere.journal');
    rmSync(journal, { force: true });
    const first = await runInProcess([...args(input), '--resume', journal], { env });
    expect(first.code).toBe(0);
    expect(readdirSync(join(state, 'batches'))).toHaveLength(1);

    const again = await runInProcess(args(input), { env });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`the journal ${journal} records 30 emails sent`);
    const both = await runInProcess([...args(input), '--resume', journal, '--new-run'], { env });
    expect(both.code).toBe(2);
    expect(both.stderr).toBe(`mailroom: --new-run starts a new run, and --resume ${journal} continues the run of that journal: give one of them\n`);
    expect(await sandbox.emails()).toHaveLength(30);
  });

  it('other entries are another input: a file whose first entry changed is sent as a new run; a --dry-run and a run that sent nothing leave nothing to refuse', async () => {
    const input = join(dir, 'change.ndjson');
    ndjsonInput(input, 5);
    const dry = await runInProcess([...args(input), '--dry-run'], { env });
    expect(dry.code).toBe(0);
    expect((await runInProcess(args(input), { env })).code).toBe(0);
    writeFileSync(input, `${JSON.stringify({ to: 'new@example.com', html: '<p>new</p>' })}\n${ndjsonText(5).split('\n').slice(1).join('\n')}`);
    const changed = await runInProcess([...args(input), '--json'], { env });
    expect(changed.code).toBe(0);
    expect(JSON.parse(changed.stdout)).toMatchObject({ total: 5, sent: 5 });

    // Every entry invalid: no request went out, so running it again (fixed or not) is not a resend.
    const invalid = join(dir, 'invalid.ndjson');
    writeFileSync(invalid, '{"to":"not-an-address"}\n');
    expect((await runInProcess(args(invalid), { env })).code).toBe(2);
    expect((await runInProcess(args(invalid), { env })).code).toBe(2);
    expect((await runInProcess(args(invalid), { env })).stderr).not.toContain('was already sent');
    expect(existsSync(state)).toBe(true);
  });

  it('a resume with a changed input never suggests a new run of it', async () => {
    const input = join(dir, 'resume-changed.ndjson');
    ndjsonInput(input, 20);
    await interrupted(input, 1);
    const journal = readdirSync(join(state, 'batches'))[0]!;
    const sent = (await sandbox.emails()).length;
    // Entry 0, sent by the first request, changed (not entries added at the end): a resume would pair its key with another email.
    writeFileSync(input, ndjsonText(20, '\n', (i) => ({ to: `user${i}@example.com`, html: i === 0 ? '<p>changed</p>' : `<p>Hello ${i}</p>` })));
    const r = await runInProcess([...args(input), '--resume', join(state, 'batches', journal)], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the input is not the file this journal was made from');
    expect(await sandbox.emails()).toHaveLength(sent);
    expect(r.stderr).not.toMatch(/new run|without --resume/);
  });
});

/** `count` entries as NDJSON text, entry i going to user<i> (what ndjsonInput writes), with `eol` line ends. */
const ndjsonText = (count: number, eol = '\n', entry: (i: number) => Record<string, unknown> = (i) => ({ to: `user${i}@example.com`, html: `<p>Hello ${i}</p>` })) =>
  Array.from({ length: count }, (_, i) => `${JSON.stringify(entry(i))}${eol}`).join('');

const stateJournals = () => readdirSync(join(state, 'batches')).filter((n) => n.endsWith('.journal'));

describe('a new run whose first entries an earlier run sent (stdin, an appended file, a copy)', () => {
  it('stdin piped twice: the second run is refused (exit 2, nothing sent), naming the earlier run and the entries that are the same; a --dry-run never counts as a run', async () => {
    const text = ndjsonText(40);
    const dry = await runInProcess([...args('-'), '--dry-run'], { env, input: text });
    expect(dry.code).toBe(0);
    const first = await runInProcess([...args('-'), '--json'], { env, input: text });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ total: 40, sent: 40 });
    const journal = JSON.parse(first.stdout).journal as string;
    const requests = proxy.requests();
    expect(await sandbox.emails()).toHaveLength(40);
    // A dry run after it still sends nothing and writes no journal, and says what a real run would meet.
    const dryAfter = await runInProcess([...args('-'), '--dry-run'], { env, input: text });
    expect(dryAfter.code).toBe(0);
    expect(dryAfter.stderr).toContain(
      `mailroom: note: stdin: its first 10 entries (as far as a dry run compares) are the ones run ${JSON.parse(first.stdout).runId} sent to ${proxy.baseUrl} (the journal ${journal}): a run with that host's key would be refused; --resume ${journal} sends only what it did not, --new-run sends them again\n`,
    );

    const again = await runInProcess(args('-'), { env, input: text });
    expect(again.code).toBe(2);
    expect(again.stdout).toBe('');
    const lines = again.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      new RegExp(`^mailroom: stdin: its 40 entries are the ones run \\w{12} sent to ${proxy.baseUrl} with this API key \\(the journal ${journal} records 40 emails sent; finished, last written .+\\); a new run would send them again, so nothing was sent$`),
    );
    expect(again.stderr).toContain(`that run finished: resuming it sends nothing more (mailroom batch - --resume ${journal} --from ops@example.com --subject Hi)`);
    expect(again.stderr).toContain('to send every entry again on purpose: add --new-run');
    expect(proxy.requests()).toBe(requests);
    expect(await sandbox.emails()).toHaveLength(40);
    // The refusal leaves no journal behind: only the first run's.
    expect(stateJournals()).toHaveLength(1);

    // The way on it names sends nothing twice; --new-run sends it all again, on purpose, and says so.
    const resumed = await runInProcess([...args('-'), '--resume', journal, '--json'], { env, input: text });
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ total: 40, skipped: 40, sent: 0 });
    expect(await sandbox.emails()).toHaveLength(40);
    const onPurpose = await runInProcess([...args('-'), '--new-run', '--json'], { env, input: text });
    expect(onPurpose.code).toBe(0);
    expect(onPurpose.stderr).toContain(`mailroom: note: --new-run: sending again what ${journal} records as sent (40)`);
    expect(await sandbox.emails()).toHaveLength(80);
  });

  it('a file with entries appended: refused, saying which run sent how many of them and the command that sends only the new ones; that command sends exactly those', async () => {
    const input = join(dir, 'appended.ndjson');
    writeFileSync(input, ndjsonText(30));
    const first = await runInProcess([...args(input), '--json'], { env });
    expect(first.code).toBe(0);
    const journal = JSON.parse(first.stdout).journal as string;
    writeFileSync(input, ndjsonText(35).slice(ndjsonText(30).length), { flag: 'a' });
    const requests = proxy.requests();

    const again = await runInProcess(args(input), { env });
    expect(again.code).toBe(2);
    expect(again.stdout).toBe('');
    const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(again.stderr.split('\n')[0]).toMatch(
      new RegExp(`^mailroom: ${esc(input)}: its first 30 of 35 entries are the ones run \\w{12} sent to ${esc(proxy.baseUrl)} with this API key \\(the journal ${esc(journal)} records 30 emails sent; finished, last written .+\\); a new run would send them again, so nothing was sent$`),
    );
    const only = `mailroom batch ${input} --resume ${journal} --from ops@example.com --subject Hi`;
    expect(again.stderr).toContain(`to send only the 5 entries after them: ${only}`);
    expect(again.stderr).toContain('to send every entry again on purpose: add --new-run');
    expect(proxy.requests()).toBe(requests);
    expect(await sandbox.emails()).toHaveLength(30);
    // Refused before anything is opened for writing: the first run's report is as it was, no journal is made.
    const report = join(dir, 'appended.report.ndjson');
    writeFileSync(report, 'the first run\n');
    const kept = join(dir, 'appended-new.journal');
    const withOutputs = await runInProcess([...args(input), '--report', report, '--failed', join(dir, 'appended.failed.ndjson'), '--resume', kept], { env });
    expect(withOutputs.code).toBe(2);
    expect(readFileSync(report, 'utf8')).toBe('the first run\n');
    expect([existsSync(kept), existsSync(`${kept}.lock`), existsSync(join(dir, 'appended.failed.ndjson'))]).toEqual([false, false, false]);
    expect(stateJournals()).toEqual([basename(journal)]);

    const newOnes = await runInProcess([...only.split(' ').slice(1), '--json'], { env });
    expect(newOnes.code).toBe(0);
    expect(JSON.parse(newOnes.stdout)).toMatchObject({ total: 35, skipped: 30, sent: 5, failed: 0 });
    const emails = await sandbox.emails();
    expect(emails).toHaveLength(35);
    expect(new Set(emails.map((e) => e.to)).size).toBe(35);

    // All 35 are now sent: a plain run is refused again.
    const third = await runInProcess(args(input), { env });
    expect(third.code).toBe(2);
    expect(third.stderr).toMatch(/: its 35 entries are the ones run \w{12} sent /);
    expect(await sandbox.emails()).toHaveLength(35);
  });

  it('the same entries under another name, with CRLF line ends, or as CSV with the same fields are the same input', async () => {
    const input = join(dir, 'orders.ndjson');
    writeFileSync(input, ndjsonText(12));
    expect((await runInProcess(args(input), { env })).code).toBe(0);
    const copies = {
      renamed: [join(dir, 'orders-copy.txt'), ndjsonText(12)],
      crlf: [join(dir, 'orders-crlf.ndjson'), ndjsonText(12, '\r\n')],
      csv: [join(dir, 'orders.csv'), `to,html\n${Array.from({ length: 12 }, (_, i) => `user${i}@example.com,<p>Hello ${i}</p>\n`).join('')}`],
    };
    for (const [name, [path, text]] of Object.entries(copies)) {
      writeFileSync(path!, text!);
      const r = await runInProcess(args(path!), { env });
      expect({ name, code: r.code, stdout: r.stdout }).toEqual({ name, code: 2, stdout: '' });
      expect(r.stderr).toMatch(/already sent|are the ones run/);
    }
    expect(await sandbox.emails()).toHaveLength(12);
  });

  it('an entry changed after the first request: refused all the same (the first ones were sent), and no resume is offered that would be refused', async () => {
    const input = join(dir, 'edited.ndjson');
    writeFileSync(input, ndjsonText(30));
    expect((await runInProcess(args(input), { env })).code).toBe(0);
    writeFileSync(input, ndjsonText(30, '\n', (i) => ({ to: `user${i}@example.com`, html: i === 25 ? '<p>Fixed</p>' : `<p>Hello ${i}</p>` })));
    const r = await runInProcess(args(input), { env });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toMatch(/: its first 20 of 30 entries are the ones run \w{12} sent /);
    expect(r.stderr).toContain('one or more of entries 20 to 29 differ from the ones that run read: resuming it would be refused');
    expect(r.stderr).not.toContain('--resume');
    expect(r.stderr).toContain('to send every entry again on purpose: add --new-run');
    expect(await sandbox.emails()).toHaveLength(30);
  });

  it('a run whose every entry the API refused sent nothing: the same entries go out once the sender is fixed, from a file or from stdin', async () => {
    const input = join(dir, 'refused.ndjson');
    writeFileSync(input, ndjsonText(3));
    const unverified = ['--from', 'ops@unverified.test', '--subject', 'Hi', '--json'];
    for (const source of [{ file: input }, { file: '-', input: ndjsonText(3) }]) {
      // The file's run sent these entries: the stdin round starts with no journal.
      await sandbox.reset();
      rmSync(state, { recursive: true, force: true });
      const refused = await runInProcess(['batch', source.file, ...unverified], { env, ...(source.input ? { input: source.input } : {}) });
      expect(refused.code).toBe(7);
      expect(JSON.parse(refused.stdout)).toMatchObject({ total: 3, sent: 0, failed: 3 });
      const fixed = await runInProcess([...args(source.file), '--json'], { env, ...(source.input ? { input: source.input } : {}) });
      expect({ code: fixed.code, stderr: fixed.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(fixed.stdout)).toMatchObject({ total: 3, sent: 3 });
      expect(await sandbox.emails()).toHaveLength(3);
    }
  });

  it("entries with their own idempotencyKey: the refusal says the API would send none of them again, and --new-run indeed sends nothing twice", async () => {
    const text = ndjsonText(10, '\n', (i) => ({ to: `user${i}@example.com`, html: `<p>Hello ${i}</p>`, idempotencyKey: `order-${i}` }));
    expect((await runInProcess(args('-'), { env, input: text })).code).toBe(0);
    const again = await runInProcess(args('-'), { env, input: text });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('each of them carries its own idempotencyKey: the API answers those with the email it already has and sends nothing again, so --new-run sends none of them twice');
    const onPurpose = await runInProcess([...args('-'), '--new-run', '--json'], { env, input: text });
    expect(onPurpose.code).toBe(0);
    expect(await sandbox.emails()).toHaveLength(10);
  });
});

describe("a shorter input whose entries all fall inside an earlier run's first request", () => {
  const args20 = (input: string, ...more: string[]) => ['batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--concurrency', '1', '--size', '20', ...more];
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const csvText = (count: number) => `to,html\n${Array.from({ length: count }, (_, i) => `user${i}@example.com,<p>Hello ${i}</p>\n`).join('')}`;

  /** Sends 40 entries from a file in requests of 20: its first request holds entries 0 to 19. */
  async function sent40(): Promise<{ journal: string; runId: string }> {
    const input = join(dir, 'forty.ndjson');
    writeFileSync(input, ndjsonText(40));
    const first = await runInProcess([...args20(input), '--json'], { env });
    expect(first.code).toBe(0);
    expect(await sandbox.emails()).toHaveLength(40);
    const { journal, runId } = JSON.parse(first.stdout) as { journal: string; runId: string };
    return { journal, runId };
  }

  it('a file of its first 15 lines: refused (exit 2, nothing sent), saying the 15 entries are ones that run sent, and that a resume does not apply', async () => {
    const { journal, runId } = await sent40();
    const short = join(dir, 'first15.ndjson');
    writeFileSync(short, ndjsonText(15));
    const requests = proxy.requests();
    const r = await runInProcess(args20(short), { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toMatch(
      new RegExp(`^mailroom: ${esc(short)}: its 15 entries are the first 15 of the 20 that run ${runId} sent to ${esc(proxy.baseUrl)} in its first request with this API key \\(the journal ${esc(journal)} records 15 of them sent; finished, last written .+\\); a new run would send them again, so nothing was sent$`),
    );
    expect(r.stderr).toContain(`a resume does not apply to a shorter input (that run read 40 entries); that run finished: nothing of ${short} is left to send`);
    expect(r.stderr).not.toContain('--resume');
    expect(r.stderr).toContain('to send every entry again on purpose: add --new-run');
    expect(proxy.requests()).toBe(requests);
    expect(await sandbox.emails()).toHaveLength(40);
    expect(stateJournals()).toEqual([basename(journal)]);

    // --new-run sends them again, on purpose, and says so.
    const onPurpose = await runInProcess([...args20(short), '--new-run', '--json'], { env });
    expect(onPurpose.code).toBe(0);
    expect(onPurpose.stderr).toContain(`mailroom: note: --new-run: sending again what ${journal} records as sent (15)`);
    expect(await sandbox.emails()).toHaveLength(55);
  });

  it('stdin of its first 15 lines (CRLF), and the same 15 as CSV: refused; a --dry-run notes it', async () => {
    const { journal, runId } = await sent40();
    const dry = await runInProcess([...args20('-'), '--dry-run'], { env, input: ndjsonText(15, '\r\n') });
    expect(dry.code).toBe(0);
    expect(dry.stderr).toContain(
      `mailroom: note: stdin: its 15 entries are the first 15 of the 20 that run ${runId} sent to ${proxy.baseUrl} in its first request (the journal ${journal}): a run with that host's key would be refused; --new-run sends them again\n`,
    );
    const piped = await runInProcess(args20('-'), { env, input: ndjsonText(15, '\r\n') });
    expect(piped.code).toBe(2);
    expect(piped.stderr.split('\n')[0]).toMatch(new RegExp(`^mailroom: stdin: its 15 entries are the first 15 of the 20 that run ${runId} sent to `));
    const csv = join(dir, 'first15.csv');
    writeFileSync(csv, csvText(15));
    const fromCsv = await runInProcess(args20(csv), { env });
    expect(fromCsv.code).toBe(2);
    expect(fromCsv.stderr.split('\n')[0]).toMatch(new RegExp(`^mailroom: ${esc(csv)}: its 15 entries are the first 15 of the 20 that run ${runId} sent to `));
    // A smaller --size: the first request (10 entries) is inside that run's first one all the same.
    const smaller = await runInProcess([...args20('-'), '--size', '10'], { env, input: ndjsonText(15) });
    expect(smaller.code).toBe(2);
    expect(await sandbox.emails()).toHaveLength(40);
  });

  it('a run that stopped before its end: the way on is resuming it with the input it read', async () => {
    const input = join(dir, 'stopped.ndjson');
    writeFileSync(input, ndjsonText(400));
    const cmd = startInProcess(args20(input), { env });
    await proxy.batches(2);
    expect((await cmd.stop()).code).toBe(130);
    const journal = join(state, 'batches', stateJournals()[0]!);
    const sent = (await sandbox.emails()).length;
    const short = join(dir, 'stopped-first5.ndjson');
    writeFileSync(short, ndjsonText(5));
    const r = await runInProcess(args20(short), { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/a resume does not apply to a shorter input \(that run read at least \d+ entries\); to finish that run, resume it with the input it read: /);
    expect(r.stderr).toContain(`: mailroom batch ${input} --resume ${journal} --from ops@example.com --subject Hi\n`);
    expect(await sandbox.emails()).toHaveLength(sent);
  });

  it('a shorter input that goes past that first request: refused as before, without a resume that would be refused', async () => {
    const { runId } = await sent40();
    const short = join(dir, 'first30.ndjson');
    writeFileSync(short, ndjsonText(30));
    const r = await runInProcess(args20(short), { env });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toMatch(new RegExp(`^mailroom: ${esc(short)}: its first 20 of 30 entries are the ones run ${runId} sent `));
    expect(r.stderr).toContain(`that run read more entries than ${short} has: resuming it with this input would be refused`);
    expect(await sandbox.emails()).toHaveLength(40);
  });

  it('a journal written before first requests recorded each entry: a shorter input is not caught (as before), the same entries still are', async () => {
    const { journal } = await sent40();
    // As the previous version wrote it: the first checkpoint without the running hash after each entry.
    const lines = readFileSync(journal, 'utf8').split('\n');
    const { upTo, sha } = JSON.parse(lines[1]!) as { upTo: number; sha: string };
    lines[1] = JSON.stringify({ upTo, sha });
    writeFileSync(journal, lines.join('\n'));
    const same = await runInProcess(args20('-'), { env, input: ndjsonText(40) });
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(/^mailroom: stdin: its 40 entries are the ones run \w{12} sent /);
    const short = await runInProcess([...args20('-'), '--json'], { env, input: ndjsonText(15) });
    expect(short.code).toBe(0);
    expect(JSON.parse(short.stdout)).toMatchObject({ total: 15, sent: 15 });
    expect(await sandbox.emails()).toHaveLength(55);
  });
});
