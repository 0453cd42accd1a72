import { createHash, type Hash } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import { usageError, type MailroomError } from '../errors.js';
import type { InputItem } from '../input/json-stream.js';
import { lockHolder } from '../output/lock.js';
import { oneLine } from '../output/one-line.js';
import { count, figure } from '../plural.js';
import { entryText, ownKey } from './chunks.js';
import { DONE_FAILED, DONE_OK, DoneSet } from './done-set.js';
import { firstRequestsOf, sameMomentRefusal, type FirstRequest } from './earlier-runs.js';
import { HOLD_LIMIT, prefixDigest, type ApiIdentity } from './journal.js';
import { loadJournal, type LoadedJournal } from './journal-read.js';
import type { BatchWording } from './wording.js';

// A new run compares its first entries with the first request of each earlier run to the same API,
// by the checkpoint hash that run's journal wrote before that request: whatever the input's bytes,
// name or source (a copy, CRLF line ends, entries appended, piped stdin), the same entries in the
// same order are the same emails, and a new run would send them again under new keys.

export interface SameEntriesCheck {
  /** The state directory's journals. */
  dir: string;
  /** The API this run sends to; none in a dry run, which compares with runs to any API and only notes what it finds. */
  api: ApiIdentity | undefined;
  /** Send again on purpose: only noted. */
  newRun: boolean;
  /** How messages name the input ("stdin", the path as given, "the entries"). */
  label: string;
  /** The input as a resume command names it: the path as given, or `-` for stdin. */
  input: string;
  /** The input is piped: a resume command reads it from the same producer. */
  piped: boolean;
  /** A file: read to its end to count its entries. Other sources are read no further than the earlier run's entries (a producer may never end). */
  file: boolean;
  /** Entries per request of this run: a first request that ends inside an earlier run's first request repeats its entries. */
  size: number;
  wording: BatchWording;
  warn: (message: string) => void;
  /** Filled with the run ids of the journals compared here: the claim of the first request (first-request-claim.ts) judges only the others. */
  seen?: Set<string>;
}

const digest = (hash: Hash) => hash.copy().digest('hex').slice(0, 32);

/**
 * The input's entries, unchanged, once none of its first ones is what an earlier run sent; refused
 * otherwise (unless `newRun`). Once per run: the earlier runs' first checkpoints are one small read
 * per journal, and only the entries up to the furthest of them are held back and hashed here (then
 * handed on as read); with no earlier run to the same API the entries are not touched at all.
 */
export async function checkEntriesNotSentBefore(c: SameEntriesCheck, items: AsyncIterable<InputItem>): Promise<AsyncIterable<InputItem>> {
  const byUpTo = new Map<number, FirstRequest[]>();
  let reach = -1;
  for (const run of firstRequestsOf(c.dir, c.api)) {
    c.seen?.add(run.header.runId);
    if (run.upTo >= HOLD_LIMIT) continue;
    byUpTo.set(run.upTo, [...(byUpTo.get(run.upTo) ?? []), run]);
    reach = Math.max(reach, run.upTo);
  }
  if (reach === -1) return items;

  const rest = items[Symbol.asyncIterator]();
  const held: InputItem[] = [];
  const hash = createHash('sha256');
  /** Each matching run, and the index of the last of its entries this input repeats. */
  const matches = new Map<FirstRequest, number>();
  /** Compares this input's first `at + 1` entries with the start of each earlier first request that reaches past them. */
  const inside = (at: number) => {
    const short = prefixDigest(digest(hash));
    for (const run of withPrefix) if (at < run.upTo && run.prefix![at] === short && !matches.has(run)) matches.set(run, at);
  };
  const withPrefix = [...byUpTo.values()].flat().filter((run) => run.prefix !== undefined);
  let failure: { error: unknown } | undefined;
  let ended = false;
  try {
    while (held.length <= reach) {
      const next = await rest.next();
      if (next.done) {
        ended = true;
        break;
      }
      held.push(next.value);
      hash.update(`${entryText(next.value)}\n`);
      // This run's first request ends here (with no invalid entry before): all of it was sent before.
      if (held.length === c.size) inside(held.length - 1);
      const runs = byUpTo.get(held.length - 1);
      if (runs === undefined) continue;
      const sha = digest(hash);
      for (const run of runs) if (run.sha === sha) matches.set(run, run.upTo);
    }
  } catch (error) {
    // Broken input: handed on after the entries before it, as if read there (unless refused below).
    failure = { error };
  }
  // A shorter input: its every entry is in an earlier run's first request.
  if (held.length > 0 && held.length !== c.size && (ended || failure !== undefined)) inside(held.length - 1);
  const found = await newestThatSent(matches);
  if (found === undefined) return replay(held, rest, failure);
  const { run, at } = found;
  const { name } = c.wording;
  /** The input ends where its entries stop being that run's: a shorter input, which no resume applies to. */
  const shorter = at < run.upTo && held.length === at + 1 && (ended || failure !== undefined);
  if (c.api === undefined) {
    c.warn(
      at < run.upTo
        ? `${c.label}: ${shorter ? 'its' : 'its first'} ${count(at + 1, 'entry')} ${at === 0 ? 'is the first' : `are the first ${figure(at + 1)}`} of the ${figure(run.upTo + 1)} that run ${run.header.runId} sent to ${run.header.api?.baseUrl} in its first request (the journal ${oneLine(run.path)}): a run with that host's key would be refused; ${name('newRun')} sends them again`
        : `${c.label}: its first ${count(run.upTo + 1, 'entry')} (as far as a dry run compares) are the ones run ${run.header.runId} sent to ${run.header.api?.baseUrl} (the journal ${oneLine(run.path)}): a run with that host's key would be refused; ${name('journal')} ${oneLine(run.path)} sends only what it did not, ${name('newRun')} sends them again`,
    );
    return replay(held, rest, failure);
  }
  const sending = lockHolder(run.path);
  if (sending) throw sameMomentRefusal(c, run.path, found.journal.header, sending);
  if (c.newRun) {
    c.warn(`${name('newRun')}: sending again what ${oneLine(run.path)} records as sent (${figure(found.sent)})`);
    return replay(held, rest, failure);
  }
  const more = failure === undefined && !ended ? rest : undefined;
  throw at < run.upTo ? await insideRefusal(c, run, found.journal, at, shorter, held, more) : await refusal(c, run, found.journal, held, more);
}

/**
 * The newest of the matching runs that may have sent something: a finished run whose every entry
 * was refused by the API (or invalid) sent nothing, and sending its entries again (the sender now
 * verified, say) is no repeat.
 */
async function newestThatSent(matches: Map<FirstRequest, number>): Promise<{ run: FirstRequest & { modifiedAt: Date }; at: number; journal: LoadedJournal; sent: number } | undefined> {
  const found: Array<{ run: FirstRequest & { modifiedAt: Date }; at: number }> = [];
  for (const [match, at] of matches) {
    try {
      // A journal kept elsewhere (--resume <new file>) is known here by a link: named by its own path.
      const path = realpathSync(match.path);
      found.push({ run: { ...match, path, modifiedAt: statSync(path).mtime }, at });
    } catch {
      // Gone since the listing, or a link to a journal deleted since.
    }
  }
  found.sort((a, b) => b.run.modifiedAt.getTime() - a.run.modifiedAt.getTime());
  for (const { run, at } of found) {
    let sent = 0;
    let journal: LoadedJournal;
    try {
      // Of entries inside its first request: only those this input repeats count.
      journal = await loadJournal(run.path, (record) => {
        if ('ok' in record) for (const ok of record.ok) if (at === run.upTo || ok[0] <= at) sent += 1;
      });
    } catch {
      // Its first lines say a request went out; unreadable past them, it cannot say more.
      journal = { header: run.header, done: new DoneSet(), checkpoints: new Map([[run.upTo, run.sha]]), validBytes: 0 };
    }
    if (journal.finished !== undefined && sent === 0) continue;
    return { run, at, journal, sent };
  }
  return undefined;
}

/** The held entries, then the rest as read (and the error reading stopped at, if any). */
function replay(held: InputItem[], rest: AsyncIterator<InputItem>, failure: { error: unknown } | undefined): AsyncIterable<InputItem> {
  let at = 0;
  const iterator: AsyncIterator<InputItem> = {
    next: () => {
      if (at < held.length) {
        const value = held[at]!;
        // Not kept for the rest of the run once handed on.
        held[at++] = undefined as unknown as InputItem;
        return Promise.resolve({ value, done: false });
      }
      if (failure !== undefined) {
        const { error } = failure;
        failure = undefined;
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
      return rest.next();
    },
    return: async (value?: unknown) => {
      await rest.return?.(value);
      return { value, done: true };
    },
  };
  return { [Symbol.asyncIterator]: () => iterator };
}

/**
 * How far the input is the earlier run's, checkpoint by checkpoint (the input is read to its end to
 * count it: nothing will be sent), and the refusal that says so, with the ways on.
 */
async function refusal(c: SameEntriesCheck, run: FirstRequest & { modifiedAt: Date }, journal: LoadedJournal, held: InputItem[], rest: AsyncIterator<InputItem> | undefined): Promise<MailroomError> {
  const hash = createHash('sha256');
  const lastMark = lastCheckpoint(journal);
  let index = -1;
  let same = -1;
  let differs = false;
  let differsBy = -1;
  let ownKeys = 0;
  let ownKeysSame = 0;
  const visit = (item: InputItem) => {
    index += 1;
    if (differs || index > lastMark) return;
    hash.update(`${entryText(item)}\n`);
    if (ownKey(item.value) !== undefined) ownKeys += 1;
    const mark = journal.checkpoints.get(index);
    if (mark === undefined) return;
    if (digest(hash) !== mark) {
      differs = true;
      differsBy = index;
    } else {
      same = index;
      ownKeysSame = ownKeys;
    }
  };
  // Past what that run read, or where the entries differ, a producer that may never end is read no further.
  const enough = () => !c.file && (differs || index > lastMark);
  for (const item of held) visit(item);
  let ended = rest === undefined;
  try {
    while (!ended && !enough()) {
      const next = await rest!.next();
      if (next.done) ended = true;
      else visit(next.value);
    }
  } catch {
    // Broken further on: the count stops there.
    ended = true;
  }
  /** The input goes on past what was read: its total is not known. */
  const more = !ended;
  const total = index + 1;
  const entries = same + 1;
  const { sent, refused } = settledUpTo(journal, same);

  const { name, finishRun } = c.wording;
  const finished = journal.finished !== undefined;
  const which = more ? `its first ${count(entries, 'entry')}` : entries === total ? `its ${count(total, 'entry')}` : `its first ${figure(entries)} of ${count(total, 'entry')}`;
  const what = recorded(`${count(sent, 'email')} sent`, sent, refused);
  const when = whenOf(run, finished);
  const resume = `${c.piped ? 'pipe the same input into: ' : ''}${finishRun(journal.header, run.path, c.input)}`;
  const hints: string[] = [];
  if (differs) hints.push(`one or more of entries ${entries} to ${differsBy} differ from the ones that run read: resuming it would be refused`);
  else if (same < lastMark) hints.push(`that run read more entries than ${c.label} has: resuming it with this input would be refused`);
  else if (!finished) hints.push(`to finish that run, sending only what it did not: ${resume}`);
  else if (more) hints.push(`to send only the entries after them: ${resume}`);
  else if (total > entries) hints.push(`to send only the ${count(total - entries, 'entry')} after them: ${resume}`);
  else hints.push(`that run finished: resuming it sends nothing more (${finishRun(journal.header, run.path, c.input)})`);
  hints.push(...ownKeyHint(ownKeysSame, entries, name('newRun')));
  hints.push(`to send every entry again on purpose: add ${name('newRun')}`);
  return usageError(
    `${c.label}: ${which} ${entries === 1 ? 'is the one' : 'are the ones'} run ${run.header.runId} sent to ${run.header.api?.baseUrl} with this API key (the journal ${run.path} records ${what}; ${when}); a new run would send them again, so nothing was sent`,
    hints,
  );
}

/**
 * The refusal of an input whose first `at + 1` entries are the start of an earlier run's first
 * request (no further: they would have matched its checkpoint). A resume does not apply: that run's
 * journal holds more entries than this input has there.
 */
async function insideRefusal(c: SameEntriesCheck, run: FirstRequest & { modifiedAt: Date }, journal: LoadedJournal, at: number, shorter: boolean, held: InputItem[], rest: AsyncIterator<InputItem> | undefined): Promise<MailroomError> {
  const entries = at + 1;
  let total = held.length;
  let more = rest !== undefined;
  if (rest !== undefined && c.file) {
    // A file is counted to its end (nothing will be sent); a producer that may never end is not.
    try {
      for (;;) {
        const next = await rest.next();
        if (next.done) break;
        total += 1;
      }
    } catch {
      // Broken further on: the count stops there.
    }
    more = false;
  }
  const { sent, refused } = settledUpTo(journal, at);
  let ownKeys = 0;
  for (let i = 0; i <= at; i++) if (ownKey(held[i]!.value) !== undefined) ownKeys += 1;

  const { name, finishRun } = c.wording;
  const finished = journal.finished !== undefined;
  const which = shorter ? `its ${count(entries, 'entry')}` : more ? `its first ${count(entries, 'entry')}` : `its first ${figure(entries)} of ${count(total, 'entry')}`;
  const what = recorded(`${figure(sent)} of them sent`, sent, refused);
  const when = whenOf(run, finished);
  const read = journal.finished !== undefined ? count(journal.finished.total, 'entry') : `at least ${count(lastCheckpoint(journal) + 1, 'entry')}`;
  const own = journal.header.input;
  const ownResume = `${own === '-' ? 'pipe the input it read into: ' : ''}${finishRun(journal.header, run.path, own)}`;
  const hints: string[] = [];
  const wayOn = finished ? `that run finished: nothing of ${c.label} is left to send` : `to finish that run, resume it with the input it read: ${ownResume}`;
  if (shorter) hints.push(`a resume does not apply to a shorter input (that run read ${read}); ${wayOn}`);
  else hints.push(`the entries after them are not the ones that run read: resuming it with this input would be refused; ${wayOn}`);
  hints.push(...ownKeyHint(ownKeys, entries, name('newRun')));
  hints.push(`to send every entry again on purpose: add ${name('newRun')}`);
  return usageError(
    `${c.label}: ${which} ${at === 0 ? 'is the first' : `are the first ${figure(entries)}`} of the ${figure(run.upTo + 1)} that run ${run.header.runId} sent to ${run.header.api?.baseUrl} in its first request with this API key (the journal ${run.path} records ${what}; ${when}); a new run would send them again, so nothing was sent`,
    hints,
  );
}

/** The index of the last entry an earlier run's journal holds a checkpoint for. */
function lastCheckpoint(journal: LoadedJournal): number {
  let last = -1;
  for (const upTo of journal.checkpoints.keys()) last = Math.max(last, upTo);
  return last;
}

/** Of the entries up to `upTo`, how many the journal records as sent and as refused by the API. */
function settledUpTo(journal: LoadedJournal, upTo: number): { sent: number; refused: number } {
  let sent = 0;
  let refused = 0;
  for (let i = 0; i <= upTo; i++) {
    const state = journal.done.get(i);
    if (state === DONE_OK) sent += 1;
    else if (state === DONE_FAILED) refused += 1;
  }
  return { sent, refused };
}

/** What a refused run's journal records: `sentText` and the refused, or requests with no answer recorded. */
function recorded(sentText: string, sent: number, refused: number): string {
  if (sent === 0 && refused === 0) return 'requests sent whose answers it never recorded (the API may have accepted them)';
  return [sentText, ...(refused > 0 ? [`${figure(refused)} refused by the API`] : [])].join(' and ');
}

function whenOf(run: { modifiedAt: Date }, finished: boolean): string {
  return `${finished ? 'finished' : 'stopped before the end'}, last written ${run.modifiedAt.toISOString()}`;
}

/** What entries carrying their own idempotencyKey mean for sending them again (none: no hint). */
function ownKeyHint(ownKeys: number, entries: number, newRun: string): string[] {
  if (ownKeys === entries) return [`each of them carries its own idempotencyKey: the API answers those with the email it already has and sends nothing again, so ${newRun} sends none of them twice`];
  if (ownKeys > 0) return [`${figure(ownKeys)} of them carry their own idempotencyKey (the API answers those with the email it already has and sends nothing again); the other ${count(entries - ownKeys, 'entry')} would be sent twice`];
  return [];
}
