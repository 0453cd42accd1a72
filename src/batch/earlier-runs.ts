import { closeSync, openSync, readdirSync, readSync, realpathSync, statSync, symlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { makeDirectory } from '../files.js';
import { lockHolder, type LockOwner } from '../output/lock.js';
import { oneLine } from '../output/one-line.js';
import { usageError, type MailroomError } from '../errors.js';
import type { ApiIdentity, CheckpointRecord, JournalHeader } from './journal.js';
import { loadJournal } from './journal-read.js';
import type { BatchWording } from './wording.js';
import { figure } from '../plural.js';

/** What an earlier run of the same input, to the same API, left in its journal. */
export interface EarlierRun {
  path: string;
  header: JournalHeader;
  /** Entries the API accepted (journaled answers). */
  sent: number;
  /** Entries the API refused. */
  refused: number;
  /** Last write to the journal. */
  modifiedAt: Date;
  /** The live process sending it right now, if one is. */
  sending: LockOwner | undefined;
  /** The journal ends with its run's end record: nothing of the input was left unsent. */
  finished: boolean;
}

/** Bytes read of each journal to find its header line: a header is well under this. */
const HEADER_BYTES = 64 * 1024;
const FIRST_READ = 4096;

/** The newest earlier run of an input, and how many older journals of it there are. */
export interface EarlierRuns {
  newest: EarlierRun;
  older: number;
}

/**
 * The newest journal in `dir` made from the same input bytes (`fingerprint`), sent to the same
 * host with the same key, whose run sent at least one request: a new run of that input would send
 * those emails again. Once per run: one directory listing and one small read per journal; only the
 * newest match is read whole (to say what it sent), an older one only if the newer sent nothing.
 */
export async function earlierRunsOf(dir: string, fingerprint: string, api: ApiIdentity): Promise<EarlierRuns | undefined> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.journal'));
  } catch {
    return undefined;
  }
  const matches: Array<{ path: string; header: JournalHeader; modifiedAt: Date }> = [];
  const buf = Buffer.allocUnsafe(HEADER_BYTES);
  for (const name of names) {
    const path = join(dir, name);
    const header = headerOf(path, buf);
    if (header?.fingerprint !== fingerprint || header.api?.baseUrl !== api.baseUrl || header.api.key !== api.key) continue;
    try {
      // A journal kept elsewhere (--resume <new file>) is known here by a link: named by its own path.
      const real = realpathSync(path);
      matches.push({ path: real, header, modifiedAt: statSync(real).mtime });
    } catch {
      // Gone since the listing, or a link to a journal deleted since.
    }
  }
  matches.sort((a, b) => b.modifiedAt.getTime() - a.modifiedAt.getTime());
  for (const [i, match] of matches.entries()) {
    let sent = 0;
    let refused = 0;
    let loaded;
    try {
      loaded = await loadJournal(match.path, (record) => {
        if ('ok' in record) sent += record.ok.length;
        else refused += 1;
      });
    } catch {
      continue;
    }
    // No checkpoint and no record: no request was ever sent under this journal's keys. Finished
    // with none accepted: every entry was refused by the API or invalid, so nothing was sent.
    if (loaded.checkpoints.size === 0 && sent === 0 && refused === 0) continue;
    if (loaded.finished !== undefined && sent === 0) continue;
    return { newest: { ...match, sent, refused, sending: lockHolder(match.path), finished: loaded.finished !== undefined }, older: matches.length - i - 1 };
  }
  return undefined;
}

/**
 * A journal created outside the state directory (`--resume <new file>`) gets a symbolic link there,
 * so that a later new run of the same input finds it too. Best effort: where links cannot be made,
 * only the state directory's own journals are found.
 */
export function rememberJournal(dir: string, journal: string, runId: string): void {
  try {
    makeDirectory(dir, 0o700);
    symlinkSync(journal, join(dir, `${runId}.journal`));
  } catch {
    // A read-only state directory or a filesystem without links: the run itself is unaffected.
  }
}

/** The journal header of `path`, or undefined when it is not a journal (read with `buf`, HEADER_BYTES long). */
export function headerOf(path: string, buf: Buffer = Buffer.allocUnsafe(HEADER_BYTES)): JournalHeader | undefined {
  return journalStart(path, buf)?.header;
}

/** A journal's header and, when its second line is one, the checkpoint of its first request. */
export interface JournalStart {
  header: JournalHeader;
  first: CheckpointRecord | undefined;
}

/**
 * The first two lines of a journal, or undefined when it is not one: one small read (a second when
 * a long input path or defaults need it). A journal's second line is its first request's checkpoint
 * (written before that request); one that ends at its header never sent anything.
 */
export function journalStart(path: string, buf: Buffer = Buffer.allocUnsafe(HEADER_BYTES)): JournalStart | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    let n = readSync(fd, buf, 0, FIRST_READ, 0);
    let nl = buf.subarray(0, n).indexOf(0x0a);
    let next = nl === -1 ? -1 : buf.subarray(0, n).indexOf(0x0a, nl + 1);
    if (next === -1 && n === FIRST_READ) {
      n += readSync(fd, buf, n, buf.length - n, n);
      nl = buf.subarray(0, n).indexOf(0x0a);
      next = nl === -1 ? -1 : buf.subarray(0, n).indexOf(0x0a, nl + 1);
    }
    if (nl === -1) return undefined;
    const header = JSON.parse(buf.subarray(0, nl).toString('utf8')) as Partial<JournalHeader>;
    if (header.mailroom !== 'batch-journal' || header.v !== 1 || typeof header.runId !== 'string') return undefined;
    return { header: header as JournalHeader, first: next === -1 ? undefined : checkpointIn(buf.subarray(nl + 1, next)) };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function checkpointIn(line: Buffer): CheckpointRecord | undefined {
  try {
    const record = JSON.parse(line.toString('utf8')) as Partial<CheckpointRecord>;
    if (typeof record.upTo !== 'number' || !Number.isInteger(record.upTo) || record.upTo < 0 || typeof record.sha !== 'string') return undefined;
    const { prefix } = record;
    return Array.isArray(prefix) && prefix.every((p) => typeof p === 'string') ? { upTo: record.upTo, sha: record.sha, prefix } : { upTo: record.upTo, sha: record.sha };
  } catch {
    return undefined;
  }
}

/** An earlier run to the same API whose first request's entries a new run compares its own with. */
export interface FirstRequest {
  /** As listed in the directory: a link, for a journal kept elsewhere (resolved only for a match). */
  path: string;
  header: JournalHeader;
  /** The checkpoint written before its first request: a hash of the entries up to `upTo`. */
  upTo: number;
  sha: string;
  /** The running hash after each entry before `upTo` (prefixDigest), in journals written since it was recorded. */
  prefix?: string[];
}

/**
 * The journals in `dir` of runs to the same host with the same key (to any, without `api`: a dry run
 * knows no key) that sent at least one request,
 * with the checkpoint of their first: one directory listing and one small read per journal. Journals
 * written before checkpoints existed, or not readable, are left out (their whole-input fingerprint
 * is still compared, by earlierRunsOf).
 */
export function firstRequestsOf(dir: string, api: ApiIdentity | undefined): FirstRequest[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.journal'));
  } catch {
    return [];
  }
  const found: FirstRequest[] = [];
  const buf = Buffer.allocUnsafe(HEADER_BYTES);
  for (const name of names) {
    const path = join(dir, name);
    const start = journalStart(path, buf);
    if (!start?.first || (api && (start.header.api?.baseUrl !== api.baseUrl || start.header.api.key !== api.key))) continue;
    found.push({ path, header: start.header, ...start.first });
  }
  return found;
}

const quote = (s: string) => (/^[\w./@:+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The flags of the journal's run that a resume must repeat (the HTML body only as its file). */
function defaultsArgs(header: JournalHeader): string[] {
  const d = header.defaults ?? {};
  const args: string[] = [];
  const flags: Array<[string, string]> = [['from', '--from'], ['subject', '--subject'], ['template', '--template'], ['groupBy', '--group-by'], ['sendAt', '--send-at']];
  for (const [field, flag] of flags) if (d[field] !== undefined) args.push(flag, d[field]!);
  return args;
}

/** The command that finishes the run of `journal`: its input, the journal, and the flags it must repeat. */
export function resumeCommand(header: JournalHeader, journal: string, input: string = header.input): string {
  const html = header.defaults?.html === undefined ? '' : ' --html-file <the same HTML file>';
  return `${['mailroom', 'batch', input, '--resume', journal, ...defaultsArgs(header)].map(quote).join(' ')}${html}`;
}

/**
 * The refusal of a new run whose input an earlier run already sent: names the newest such journal,
 * what it sent, and the two ways on (finish that run, or send everything again on purpose).
 */
export function rerunRefusal(runs: EarlierRuns, input: string, wording: BatchWording): MailroomError {
  const run = runs.newest;
  const what = [`${figure(run.sent)} ${run.sent === 1 ? 'email' : 'emails'} sent`];
  if (run.refused > 0) what.push(`${figure(run.refused)} refused by the API`);
  if (run.sent === 0 && run.refused === 0) what.splice(0, 1, 'requests sent whose answers it never recorded (the API may have accepted them)');
  const when = `run ${run.header.runId} of ${run.header.createdAt}, ${run.finished ? 'finished' : 'stopped before the end'}, last written ${run.modifiedAt.toISOString()}`;
  const others = runs.older > 0 ? ` (and ${runs.older} older ${runs.older === 1 ? 'journal' : 'journals'} of it)` : '';
  const hints = [
    run.finished
      ? `that run finished: resuming it sends nothing more (${wording.finishRun(run.header, run.path, input)})`
      : `to finish that run, sending only what it did not: ${wording.finishRun(run.header, run.path, input)}`,
    `to send every entry again on purpose: add ${wording.name('newRun')}`,
  ];
  return usageError(
    `${input} was already sent to ${run.header.api?.baseUrl} with this API key: the journal ${run.path}${others} records ${what.join(' and ')} (${when}); a new run would send them again, so nothing was sent`,
    hints,
  );
}

/** What a refusal of a run started at the same moment as another names. */
export interface SameMoment {
  /** How messages name the input ("stdin", the path as given, "the entries"). */
  label: string;
  /** The input as a resume command names it. */
  input: string;
  /** The input is piped: a resume command reads it from the same producer. */
  piped: boolean;
  wording: BatchWording;
}

/**
 * The refusal of a new run whose first entries another run is sending right now (`owner`, its
 * process), or sent while this one was starting (no owner: it has ended since, or was killed).
 * `--new-run` does not get past a run that is sending them: two runs at once are an accident (a CI
 * job retried while the first attempt runs, a cron job overlapping itself), not a decision.
 */
export function sameMomentRefusal(c: SameMoment, journal: string, header: JournalHeader, owner: LockOwner | undefined): MailroomError {
  const { name, finishRun } = c.wording;
  const resume = `${c.piped ? 'pipe the same input into: ' : ''}${finishRun(header, journal, c.input)}`;
  if (owner) {
    const who = `pid ${owner.pid}${owner.host === hostname() ? '' : ` on ${owner.host}`}`;
    return usageError(
      `${c.label}: run ${header.runId} (${who}, the journal ${oneLine(journal)}) is sending the same entries to ${header.api?.baseUrl} with this API key right now; a second run would send them twice, so nothing was sent`,
      [`once that run has ended, what it did not send goes with: ${resume}`, `${name('newRun')} sends them again on purpose, once that run has ended`],
    );
  }
  return usageError(
    `${c.label}: run ${header.runId} (the journal ${oneLine(journal)}) sent the same entries to ${header.api?.baseUrl} with this API key while this run was starting; a new run would send them again, so nothing was sent`,
    [`to finish that run, sending only what it did not: ${resume}`, `to send every entry again on purpose: add ${name('newRun')}`],
  );
}
