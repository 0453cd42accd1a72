import { existsSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess, startInProcess } from '../helpers/context.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { ndjsonInput, rerunWorld, type CountingProxy } from '../helpers/batch.js';

let sandbox: TestSandbox;
let proxy: CountingProxy;
let dir: string;
let env: Record<string, string>;
let state: string;
let batches: string;

rerunWorld('mailroom-batch-journals-', (w) => {
  ({ sandbox, proxy, dir, state, env } = w);
  batches = join(state, 'batches');
});

const send = (input: string, ...more: string[]) => ['batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--concurrency', '1', '--size', '10', ...more];
const journalOf = (stderr: string) => /journal: (\S+\.journal)/.exec(stderr)![1]!;
const runIdOf = (journal: string) => /(\w+)\.journal$/.exec(journal)![1]!;

/** A run that sent everything: 3 accepted, 1 refused by the API. */
async function finishedRun(): Promise<string> {
  const input = join(dir, 'done.ndjson');
  writeFileSync(
    input,
    [
      { to: 'a@example.com', html: '<p>a</p>' },
      { to: 'b@example.com', html: '<p>b</p>' },
      { from: 'someone@unverified.test', to: 'e@example.com', html: '<p>e</p>' },
      { to: 'c@example.com', html: '<p>c</p>' },
    ]
      .map((e) => JSON.stringify(e))
      .join('\n'),
  );
  const r = await runInProcess(send(input), { env });
  expect(r.code).toBe(7);
  return journalOf(r.stderr);
}

/** A run stopped by Ctrl-C after 3 of its requests reached the API. */
async function interruptedRun(): Promise<string> {
  const input = join(dir, 'big.ndjson');
  ndjsonInput(input, 500);
  const cmd = startInProcess(send(input), { env });
  await proxy.batches(3);
  const r = await cmd.stop();
  expect(r.code).toBe(130);
  return journalOf(r.stderr);
}

const list = async (...more: string[]) => {
  const r = await runInProcess(['batch', 'journals', ...more, '--json'], { env, cwd: dir });
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as { items: Array<Record<string, unknown>>; hasMore: boolean };
};

describe('batch journals (list)', () => {
  it('lists each journal of the state directory: input, host, started, sent and refused, finished or not, and the command that finishes an unfinished one', async () => {
    const done = await finishedRun();
    const cut = await interruptedRun();
    const sentByCut = (await sandbox.emails()).length - 3;
    const { items, hasMore } = await list();
    expect(hasMore).toBe(false);
    expect(items.map((j) => j.journal).sort()).toEqual([done, cut].sort());
    const finished = items.find((j) => j.journal === done)!;
    expect(finished).toEqual({
      journal: done,
      link: null,
      runId: runIdOf(done),
      input: join(dir, 'done.ndjson'),
      host: proxy.baseUrl,
      profile: 'default',
      started: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      lastWritten: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      sent: 3,
      refused: 1,
      unsent: 0,
      total: 4,
      finished: true,
      finishedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      running: false,
      resume: null,
    });
    const unfinished = items.find((j) => j.journal === cut)!;
    expect(unfinished).toMatchObject({ sent: sentByCut, refused: 0, unsent: null, total: null, finished: false, finishedAt: null, running: false });
    expect(unfinished.resume).toBe(`mailroom batch ${join(dir, 'big.ndjson')} --resume ${cut} --from ops@example.com --subject Hi`);

    // The table a person reads: one line per journal, the state spelled out, secrets nowhere.
    const table = await runInProcess(['batch', 'journals'], { env, cwd: dir, tty: true, color: false, columns: 200 });
    expect(table.code).toBe(0);
    const rows = table.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^RUN +INPUT +HOST +STARTED +SENT +REFUSED +STATE$/);
    expect(rows.find((l) => l.startsWith(runIdOf(done)))).toMatch(/ 3 +1 +finished$/);
    expect(rows.find((l) => l.startsWith(runIdOf(cut)))).toMatch(new RegExp(` ${sentByCut} +0 +unfinished$`));
    expect(table.stderr).toBe('Unfinished runs: mailroom batch journals show <run> prints the command that sends the rest.\n');
    const header = JSON.parse(readFileSync(done, 'utf8').split('\n')[0]!) as { api: { key: string } };
    for (const out of [table.stdout, JSON.stringify(items)]) {
      expect(out).not.toContain(sandbox.apiKey);
      expect(out).not.toContain(header.api.key);
    }

    // Resuming the cut run finishes it: the listing says so.
    const resumed = await runInProcess(unfinished.resume!.toString().split(' ').slice(1), { env });
    expect(resumed.code).toBe(0);
    expect((await list()).items.find((j) => j.journal === cut)).toMatchObject({ sent: 500, unsent: 0, total: 500, finished: true, resume: null });
  });

  it('an empty or missing state directory lists nothing; a file there that is not a journal is named on stderr and left alone', async () => {
    expect(await list()).toEqual({ items: [], hasMore: false });
    const empty = await runInProcess(['batch', 'journals'], { env, cwd: dir, tty: true, color: false });
    expect(empty).toMatchObject({ code: 0, stdout: `No journals in ${batches}.\n`, stderr: '' });
    mkdirSync(batches, { recursive: true });
    writeFileSync(join(batches, 'notes.journal'), 'hello\n');
    const r = await runInProcess(['batch', 'journals', '--json'], { env, cwd: dir });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ items: [], hasMore: false });
    expect(r.stderr).toBe(`mailroom: note: skipped ${join(batches, 'notes.journal')}: not a mailroom batch journal\n`);
    expect(existsSync(join(batches, 'notes.journal'))).toBe(true);
  });

  it('a file named journals: `batch journals` lists (and says how to send the file), `batch ./journals` sends it', async () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    writeFileSync(join(cwd, 'journals'), `${JSON.stringify({ to: 'j@example.com', html: '<p>j</p>' })}\n`);
    const listed = await runInProcess(['batch', 'journals'], { env, cwd, tty: true, color: false });
    expect(listed.code).toBe(0);
    expect(listed.stderr).toBe('mailroom: note: this lists journals; to send the file named journals here: mailroom batch ./journals\n');
    expect(await sandbox.emails()).toHaveLength(0);
    const sent = await runInProcess(send('./journals'), { env, cwd });
    expect(sent.code).toBe(0);
    expect((await sandbox.emails()).map((e) => e.to)).toEqual(['j@example.com']);
  });

  it("batch's own options are refused after journals, before anything is read (exit 2)", async () => {
    const r = await runInProcess(['batch', '--format', 'csv', 'journals'], { env, cwd: dir });
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: 'mailroom: --format is an option of sending a batch, not of batch journals list\n' });
  });
});

describe('batch journals show', () => {
  it('by run id or path: the run, its counts and the API refusals (index, line, error); --json has them all', async () => {
    const done = await finishedRun();
    const byId = await runInProcess(['batch', 'journals', 'show', runIdOf(done), '--json'], { env, cwd: dir });
    expect(byId.code).toBe(0);
    const shown = JSON.parse(byId.stdout) as Record<string, unknown>;
    expect(shown).toMatchObject({ journal: done, sent: 3, refused: 1, finished: true, total: 4 });
    expect(shown.refusedEntries).toEqual([{ index: 2, line: 3, error: expect.stringContaining('unverified.test'), statusCode: expect.any(Number) }]);
    const byPath = await runInProcess(['batch', 'journals', 'show', done, '--json'], { env, cwd: dir });
    expect(byPath.stdout).toBe(byId.stdout);

    const table = await runInProcess(['batch', 'journals', 'show', runIdOf(done)], { env, cwd: dir, tty: true, color: false, columns: 200 });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^state +finished$/m);
    expect(table.stdout).toMatch(/^sent +3$/m);
    expect(table.stdout).toMatch(/^INDEX +LINE +STATUS +ERROR$/m);
    expect(table.stdout).toMatch(/^2 +3 +\d{3} +.*unverified\.test/m);
    expect(table.stdout).not.toContain(sandbox.apiKey);
  });

  it('a name that is neither a file nor a listed run, or a file that is not a journal: exit 2, one line', async () => {
    const r = await runInProcess(['batch', 'journals', 'show', 'abcdefabcdef'], { env, cwd: dir });
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: 'mailroom: abcdefabcdef: no such journal (give its path, or the run id that `mailroom batch journals` lists)\n' });
    writeFileSync(join(dir, 'not.journal'), '{"a":1}\n');
    const bad = await runInProcess(['batch', 'journals', 'show', 'not.journal'], { env, cwd: dir });
    expect(bad).toMatchObject({ code: 2, stdout: '', stderr: `mailroom: ${join(dir, 'not.journal')}: not a mailroom batch journal\n` });
    // An empty name (an unset variable) is not the current directory.
    const empty = await runInProcess(['batch', 'journals', 'show', ''], { env, cwd: dir });
    expect(empty).toMatchObject({ code: 2, stdout: '', stderr: 'mailroom: batch journals show: the journal is empty: give its path, or the run id that `mailroom batch journals` lists\n' });
  });
});

describe('batch journals prune', () => {
  it('says which journals or refuses (exit 2, nothing deleted)', async () => {
    await finishedRun();
    for (const [args, message] of [
      [[], 'mailroom: batch journals prune: say which journals: --older-than <duration> (e.g. 30d), or --all for every finished one\n'],
      [['--all', '--older-than', '1d'], 'mailroom: batch journals prune: --older-than and --all: give one of them\n'],
      [['--older-than', '30 days'], 'mailroom: --older-than: "30 days" is not a duration (e.g. 90s, 5m, 1h, 2d)\n'],
    ] as const) {
      const r = await runInProcess(['batch', 'journals', 'prune', ...args], { env, cwd: dir });
      expect(r).toMatchObject({ code: 2, stdout: '', stderr: message });
    }
    expect(readdirSync(batches)).toHaveLength(1);
  });

  it('--all deletes finished journals and keeps unfinished ones (saying so) unless --force; --dry-run deletes nothing', async () => {
    const done = await finishedRun();
    const cut = await interruptedRun();

    const dry = await runInProcess(['batch', 'journals', 'prune', '--all', '--dry-run'], { env, cwd: dir, tty: true, color: false });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe(`would delete ${runIdOf(done)} (${join(dir, 'done.ndjson')}, finished, 3 sent): ${done}\n`);
    expect(existsSync(done)).toBe(true);

    const r = await runInProcess(['batch', 'journals', 'prune', '--all', '--json'], { env, cwd: dir });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { removed: Array<{ journal: string }>; kept: Array<{ journal: string; kept: string }>; dryRun: boolean };
    expect(out.removed.map((j) => j.journal)).toEqual([done]);
    expect(out.kept.map((j) => [j.journal, j.kept])).toEqual([[cut, 'unfinished']]);
    expect(out.dryRun).toBe(false);
    expect(r.stderr).toBe(`mailroom: kept 1 unfinished journal (a resume sends the rest exactly once from it; --force deletes it too): ${runIdOf(cut)}\n`);
    expect(existsSync(done)).toBe(false);
    expect(existsSync(cut)).toBe(true);

    const forced = await runInProcess(['batch', 'journals', 'prune', '--all', '--force'], { env, cwd: dir, tty: true, color: false });
    expect(forced).toMatchObject({ code: 0, stderr: '' });
    expect(forced.stdout).toBe(`deleted ${runIdOf(cut)} (${join(dir, 'big.ndjson')}, unfinished, ${(await sandbox.emails()).length - 3} sent): ${cut}\n`);
    expect(readdirSync(batches)).toEqual([]);
  });

  it('--older-than keeps journals written since; a journal being sent is never deleted, even with --force', async () => {
    const done = await finishedRun();
    const r = await runInProcess(['batch', 'journals', 'prune', '--older-than', '1h', '--json'], { env, cwd: dir });
    expect(JSON.parse(r.stdout)).toMatchObject({ removed: [], kept: [] });
    const old = new Date(Date.now() - 2 * 3600_000);
    utimesSync(done, old, old);
    writeFileSync(`${done}.lock`, JSON.stringify({ pid: process.pid, host: (await import('node:os')).hostname(), startedAt: new Date().toISOString() }));
    const held = await runInProcess(['batch', 'journals', 'prune', '--older-than', '1h', '--force', '--json'], { env, cwd: dir });
    expect(held.code).toBe(0);
    expect(JSON.parse(held.stdout)).toMatchObject({ removed: [], kept: [{ journal: done, kept: 'running', running: true }] });
    expect(held.stderr).toBe(`mailroom: kept ${runIdOf(done)}: a run is sending it now\n`);
    rmSync(`${done}.lock`);
    const pruned = await runInProcess(['batch', 'journals', 'prune', '--older-than', '1h', '--json'], { env, cwd: dir });
    expect(JSON.parse(pruned.stdout)).toMatchObject({ removed: [{ journal: done }], kept: [] });
    expect(existsSync(done)).toBe(false);
    expect(existsSync(`${done}.lock`)).toBe(false);
  });

  it('the journal of a run sending now (a new run, no --resume) is kept by --all --force, and stays resumable', async () => {
    const input = join(dir, 'live.ndjson');
    ndjsonInput(input, 500);
    const cmd = startInProcess(send(input), { env });
    await proxy.batches(3);
    const [name] = readdirSync(batches).filter((f) => f.endsWith('.journal'));
    const journal = join(batches, name!);
    const r = await runInProcess(['batch', 'journals', 'prune', '--all', '--force', '--json'], { env, cwd: dir });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ removed: [], kept: [{ journal, kept: 'running', running: true }] });
    expect(existsSync(journal)).toBe(true);
    const stopped = await cmd.stop();
    expect(stopped.code).toBe(130);
    expect(journalOf(stopped.stderr)).toBe(journal);
    expect(existsSync(journal)).toBe(true);
    // Its lock went with the run: the journal can be resumed, and pruned with --force.
    expect(existsSync(`${journal}.lock`)).toBe(false);
  });

  it('a journal kept elsewhere (--resume <file>) loses only its link in the state directory', async () => {
    const input = join(dir, 'mine.ndjson');
    ndjsonInput(input, 3);
    const mine = join(dir, 'mine.journal');
    rmSync(mine, { force: true });
    const sent = await runInProcess(send(input, '--resume', mine), { env });
    expect(sent.code).toBe(0);
    const [link] = readdirSync(batches);
    const r = await runInProcess(['batch', 'journals', 'prune', '--all', '--json'], { env, cwd: dir });
    expect(JSON.parse(r.stdout)).toMatchObject({ removed: [{ journal: mine, link: join(batches, link!) }] });
    expect(readdirSync(batches)).toEqual([]);
    expect(existsSync(mine)).toBe(true);
    // A link whose journal is gone is named, not listed.
    symlinkSync(join(dir, 'gone.journal'), join(batches, 'gone.journal'));
    const listed = await runInProcess(['batch', 'journals', '--json'], { env, cwd: dir });
    expect(listed.stderr).toBe(`mailroom: note: skipped ${join(batches, 'gone.journal')}: a link to a journal that no longer exists\n`);
  });
});
