import { createHash } from 'node:crypto';
import type { MailroomError } from '../errors.js';
import type { InvalidEntry, PreparedEntry, ValidEntry } from '../input/entries.js';
import { groupsOf, type Grouped } from '../input/item-groups.js';
import type { InputItem } from '../input/json-stream.js';
import { inputHash, type DoneSet } from './done-set.js';
import { HOLD_LIMIT, PREFIX_LIMIT, prefixDigest, type CheckpointRecord, type Journal } from './journal.js';
import type { BatchSummary } from './run-options.js';

export interface ChunkOptions {
  /** The refusal of a resume whose input is not its run's. */
  inputDiffers: (detail: string) => MailroomError;
  size: number;
  summary: BatchSummary;
  done: DoneSet;
  hashing: boolean;
  /** The resumed journal's input hashes by index; empty for a new run. */
  checkpoints: Map<number, string>;
  /** Where to record a checkpoint before each chunk is sent (none in --dry-run). */
  journal: Journal | undefined;
  onDone: (state: number) => void;
  onDuplicate: (index: number, line: number, of: number) => void;
  onInvalid: (e: InvalidEntry) => void;
  prepare: (item: InputItem, index: number) => PreparedEntry | Promise<PreparedEntry>;
  /**
   * A new run's first request, before it is sent: writes its checkpoint (`publish`) or throws the
   * refusal (first-request-claim.ts); `digestAt` is the running hash after each entry before it.
   */
  claimFirst?: (mark: CheckpointRecord, digestAt: (index: number) => string | undefined, publish: () => void) => void;
  /** Waits for `--report -` or `--failed -` to be taken by a slow reader (run.ts); undefined when nothing waits. */
  outputsDrained?: () => Promise<void> | undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const ownKey = (v: unknown): string | undefined => (isRecord(v) && typeof v.idempotencyKey === 'string' && v.idempotencyKey !== '' ? v.idempotencyKey : undefined);

/**
 * An entry's text in the running hash that checkpoints record: its JSON (as JSON.stringify makes it,
 * whatever the input's format; an input line already in that form is taken as it is), or the error
 * of an entry that did not parse.
 */
export const entryText = (item: InputItem): string => item.json ?? JSON.stringify(item.value ?? item.error) ?? '';

/**
 * Groups valid entries into requests of `size`, routing skipped and invalid entries as they pass.
 * On a resume, the input must be the one the journal's run read: a running hash of every entry is
 * compared with the journal's checkpoints, and no entry is sent before the checkpoint covering it
 * matched, so a changed, inserted or missing entry stops the run before any key is reused for it.
 */
export async function* chunkEntries(items: AsyncIterable<InputItem> & Pick<Grouped<InputItem>, 'groups'>, c: ChunkOptions): AsyncGenerator<ValidEntry[]> {
  let ready: ValidEntry[] = [];
  const running = c.journal || c.checkpoints.size > 0 ? createHash('sha256') : undefined;
  let lastCheckpoint = -1;
  for (const upTo of c.checkpoints.keys()) lastCheckpoint = Math.max(lastCheckpoint, upTo);
  let verifiedUpTo = -1;
  let index = -1;
  /** Entries' own idempotency keys: the first entry with each, and a digest of its content. */
  const ownKeys = new Map<string, { index: number; digest: string }>();
  /** Entries up to this index may be sent: verified, or past everything the journal's run read. */
  const sendable = () => (index >= lastCheckpoint ? Infinity : verifiedUpTo);
  // The entries' text goes to the running hash a chunk at a time (hashing pieces one after another
  // is hashing them joined): one native call per chunk instead of two per entry.
  let unhashed = '';
  const checkpoint = () => {
    running!.update(unhashed);
    unhashed = '';
    return running!.copy().digest('hex').slice(0, 32);
  };
  /** Until the first request is claimed: the running hash after each entry (bounded), to compare other runs' first requests with. */
  let digests: string[] | undefined = c.claimFirst && running && c.journal ? [] : undefined;
  const take = (n: number) => {
    const chunk = ready.slice(0, n);
    ready = ready.slice(n);
    if (running && c.journal) {
      const mark: CheckpointRecord = { upTo: index, sha: checkpoint() };
      if (digests) {
        const journal = c.journal;
        const seen = digests;
        digests = undefined;
        mark.prefix = seen.slice(0, Math.min(mark.upTo, PREFIX_LIMIT)).map(prefixDigest);
        // Written and forced to disk before the first request: from then on every run finds it.
        c.claimFirst!(mark, (i) => (i === mark.upTo ? mark.sha : seen[i]), () => {
          journal.append(mark);
          journal.sync();
        });
      } else c.journal.append(mark);
    }
    return chunk;
  };
  // The items as their reader grouped them: one async step per piece of input, not per entry.
  for await (const group of groupsOf(items)) for (const item of group) {
    index = c.summary.total;
    c.summary.total += 1;
    if ((index & 63) === 0) {
      const waiting = c.outputsDrained?.();
      if (waiting) await waiting;
    }
    const text = c.hashing || running ? entryText(item) : undefined;
    const hash = c.hashing ? inputHash(text!) : undefined;
    if (running) {
      unhashed += `${text!}\n`;
      if (digests && index < HOLD_LIMIT) digests.push(checkpoint());
      // Bounded, for the entries a resume skips without a chunk in between.
      if (unhashed.length > 65_536) {
        running.update(unhashed);
        unhashed = '';
      }
      const recorded = c.checkpoints.get(index);
      if (recorded !== undefined) {
        if (checkpoint() !== recorded) throw c.inputDiffers(`at or before entry ${index}, line ${item.line}`);
        verifiedUpTo = index;
      }
    }
    const state = c.done.get(index);
    const key = ownKey(item.value);
    const first = key === undefined ? undefined : ownKeys.get(key);
    const digest = key === undefined ? undefined : createHash('sha256').update(text ?? JSON.stringify(item.value)).digest('base64');
    if (key !== undefined && first === undefined) ownKeys.set(key, { index, digest: digest! });
    if (state !== 0) {
      const recorded = c.done.hash(index);
      if (hash !== undefined && recorded !== undefined && recorded !== hash) throw c.inputDiffers(`entry ${index}, line ${item.line}, is not the entry the journal recorded there`);
      c.onDone(state);
      continue;
    }
    if (first !== undefined) {
      // The API answers a repeated key with the first email's result: a repeat would never be sent.
      if (first.digest === digest) c.onDuplicate(index, item.line, first.index);
      else {
        c.onInvalid({
          ok: false,
          index,
          line: item.line,
          error: `idempotencyKey "${key}" is also entry ${first.index}'s, with other content: the API would answer with that email and send nothing`,
          ...(isRecord(item.value) ? { entry: item.value } : {}),
        });
      }
      continue;
    }
    const prepared = c.prepare(item, index);
    const entry = prepared instanceof Promise ? await prepared : prepared;
    if (!entry.ok) {
      c.onInvalid(entry);
      continue;
    }
    if (hash !== undefined) entry.inputHash = hash;
    ready.push(entry);
    const limit = sendable();
    while (ready.length >= c.size && ready[c.size - 1]!.index <= limit) yield take(c.size);
  }
  if (index < lastCheckpoint) throw c.inputDiffers(`it ends at entry ${index}; the run being resumed read up to entry ${lastCheckpoint}`);
  while (ready.length > 0) yield take(c.size);
}
