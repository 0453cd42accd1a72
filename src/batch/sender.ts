import type { BatchResult } from '../api/emails.js';
import type { BatchFailure } from '../types.js';
import { MailroomError, isMailroomError } from '../errors.js';
import type { ValidEntry } from '../input/entries.js';
import type { EmailRequest, EmailResult } from '../schema/index.js';
import { AbortedError, ApiError, ConnectionError, failedBeforeSending } from '../transport/http-errors.js';
import { BASE_DELAY_MS, backoffMs, MAX_RETRY_AFTER_MS } from '../transport/retry.js';
import { IdempotencyConflictError } from '../api/call-errors.js';
import { matchBatch } from './match.js';
import { ConcurrencyWindow } from './window.js';

/**
 * One POST /v1/emails/batch, one HTTP attempt (over the shared transport, or a fake in tests).
 * `stopped` aborts only a request still waiting for its pacing slot (it is then never sent).
 */
export type SendBatch = (emails: EmailRequest[], stopped?: AbortSignal) => Promise<Pick<BatchResult, 'successful' | 'failed'>>;

/** Where each entry ends up. Every entry handed to the sender reaches exactly one of these. */
export interface SenderEvents {
  sent(entry: ValidEntry, result: EmailResult): void;
  /** The API refused the entry (its own failure, or a 400 for a request holding only it). */
  rejected(entry: ValidEntry, failure: { error: string; statusCode?: number }): void;
  /** Gave up after retries: the API may or may not have it; a resume resends it with the same key. */
  uncertain(entry: ValidEntry, reason: string): void;
  /** Never attempted to the end: Ctrl-C or a fatal error stopped the run first. */
  unsent(entry: ValidEntry): void;
  retried?(info: { reason: string; status?: number; delayMs: number }): void;
}

export interface SenderOptions {
  send: SendBatch;
  concurrency: number;
  events: SenderEvents;
  /** Ctrl-C: stop starting requests; those in flight settle. */
  signal: AbortSignal;
  /** Attempts of one request on transient failures (5xx, connection errors) before giving up on it: 1 + --max-retries. */
  maxAttempts?: number;
  /** Rounds of resending entries a 2xx answer said nothing about. */
  maxUnknownRounds?: number;
  /** Backoff base between attempts, ms (the transport's by default). */
  backoffMs?: number;
  random?: () => number;
  /** The clock: pauses, the five-minute limits and the window read it, waits go through `sleep` (tests step them). */
  clock?: Clock;
}

/** Time as the sender sees it: the real one unless a test gives its own. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });
  },
};

export interface SenderOutcome {
  /** The input ran out and every chunk was settled. */
  finished: boolean;
  /** What stopped the run: bad credentials, the monthly limit, the API unreachable, broken input. */
  fatal?: MailroomError;
}

/**
 * A Retry-After longer than this, or 429s with no request getting through for this long, stop the
 * run (exit 5, resumable) rather than stalling it silently.
 */
const MAX_PAUSE_MS = 5 * 60_000;
/** Tries after Ctrl-C to learn the fate of a request that may have reached the API. */
const TRIES_AFTER_ABORT = 3;

type Verdict = 'fatal' | 'split' | 'rate' | 'transient';

const CONFLICT_HINT = 'give the entry another idempotencyKey (or none: each entry gets its own)';

/**
 * Keeps up to `concurrency` batch requests in flight (fewer while the API answers 429), settles
 * every entry of every chunk, and stops cleanly on Ctrl-C or on an error no retry can fix.
 * Retrying is always safe: every entry carries an idempotency key fixed for the run.
 */
export class BatchSender {
  private readonly window: ConcurrencyWindow;
  private pausedUntil = 0;
  private stopReason: MailroomError | undefined;
  private readonly halt = new AbortController();
  /** Ctrl-C or a fatal error: requests not yet sent (waiting for a pacing slot) are not sent. */
  private readonly stopSending: AbortSignal;
  private consecutiveFailures = 0;
  private lastSuccessAt: number;
  private anySuccess = false;
  private readonly breakerLimit: number;
  private readonly maxAttempts: number;
  private readonly maxUnknownRounds: number;
  private readonly backoffMs: number;
  private readonly random: () => number;
  private readonly clock: Clock;

  constructor(private readonly opts: SenderOptions) {
    this.clock = opts.clock ?? realClock;
    this.lastSuccessAt = this.clock.now();
    this.window = new ConcurrencyWindow(opts.concurrency, () => this.clock.now());
    this.maxAttempts = opts.maxAttempts ?? 4;
    this.maxUnknownRounds = opts.maxUnknownRounds ?? 5;
    this.backoffMs = opts.backoffMs ?? BASE_DELAY_MS;
    this.random = opts.random ?? Math.random;
    // Many requests failing in a row with nothing getting through: the API is down, stop.
    this.breakerLimit = Math.max(8, 3 * opts.concurrency);
    this.stopSending = AbortSignal.any([opts.signal, this.halt.signal]);
  }

  private get fatal(): MailroomError | undefined {
    return this.stopReason;
  }

  private set fatal(reason: MailroomError | undefined) {
    this.stopReason = reason;
    if (reason) this.halt.abort(reason);
  }

  get concurrency(): number {
    return this.window.current;
  }

  /** Stops the run from outside (its records cannot be written): no new request; those in flight settle. */
  stop(reason: MailroomError): void {
    this.fatal ??= reason;
  }

  async run(chunks: AsyncIterator<ValidEntry[]>): Promise<SenderOutcome> {
    const inflight = new Set<Promise<void>>();
    let finished = false;
    while (!this.stopped()) {
      if (inflight.size >= this.window.current) {
        await Promise.race(inflight);
        continue;
      }
      await this.waitForPause();
      if (this.stopped()) break;
      let next: IteratorResult<ValidEntry[]>;
      try {
        next = await chunks.next();
      } catch (err) {
        // The input broke half-way (a JSON syntax error, an unreadable file): stop like Ctrl-C.
        this.fatal ??= isMailroomError(err) ? err : new MailroomError('unexpected', `reading the input failed: ${String(err)}`, { cause: err });
        break;
      }
      if (next.done) {
        finished = true;
        break;
      }
      const task = this.settle(next.value).finally(() => inflight.delete(task));
      inflight.add(task);
    }
    await Promise.all(inflight);
    return { finished: finished && !this.fatal, fatal: this.fatal };
  }

  private stopped(): boolean {
    return this.opts.signal.aborted || this.fatal !== undefined;
  }

  /** Sends one chunk until each of its entries is sent, rejected, given up on, or left for a resume. */
  private async settle(entries: ValidEntry[]): Promise<void> {
    const { events } = this.opts;
    let pending = entries;
    let attempts = 0;
    let rateLimited = 0;
    let unknownRounds = 0;
    let triesAfterAbort = 0;
    let rateLimitedAfterAbort = false;
    // Entries an earlier attempt may have delivered (its answer was lost, or left them out) are never
    // called unsent: when the run stops before their fate is known they are uncertain, so nobody
    // sends them again by hand; a resume settles them under the same idempotency keys.
    const mayHaveReached = new Set<ValidEntry>();
    const leaveStopped = (why: string) => {
      for (const e of pending) {
        if (mayHaveReached.has(e)) events.uncertain(e, `${why} before its answer came (it may have been sent; a resume settles it under the same idempotency key)`);
        else events.unsent(e);
      }
    };
    while (pending.length > 0) {
      const reached = pending.some((e) => mayHaveReached.has(e));
      if (this.fatal) {
        leaveStopped(`the run stopped (${this.fatal.message})`);
        return;
      }
      if (this.opts.signal.aborted) {
        // After Ctrl-C a request that may have reached the API is tried again at once with the same
        // idempotency keys, up to three times, so the journal knows what was sent. A 429 was not
        // processed and says the API will not answer now: no more tries.
        if (rateLimitedAfterAbort || triesAfterAbort >= TRIES_AFTER_ABORT || (!reached && rateLimited > 0)) {
          leaveStopped('interrupted');
          return;
        }
        if (reached) triesAfterAbort += 1;
      }
      await this.waitForPause();
      let answer: Pick<BatchResult, 'successful' | 'failed'>;
      let emails: EmailRequest[];
      try {
        emails = pending.map((e) => e.email);
        answer = await this.opts.send(emails, triesAfterAbort > 0 ? undefined : this.stopSending);
      } catch (err) {
        // The run stopped while the request waited for its pacing slot: it was never sent (a request
        // in flight gets no signal, so this is the only AbortedError here).
        if (err instanceof AbortedError && this.stopped()) {
          // An earlier attempt of these entries may have reached the API (a lost answer): after
          // Ctrl-C the loop's one try learns their fate, and that try is not held back.
          if (!this.fatal && triesAfterAbort === 0 && reached) continue;
          leaveStopped(this.stopReason ? `the run stopped (${this.stopReason.message})` : 'interrupted');
          return;
        }
        const verdict = classify(err);
        const message = err instanceof Error ? err.message : String(err);
        if (verdict === 'fatal') {
          this.fatal ??= err as MailroomError;
          continue;
        }
        if (verdict === 'split') {
          // A 400 for the whole request: split it until the entry the API objects to stands alone.
          if (pending.length > 1) {
            const mid = Math.ceil(pending.length / 2);
            await this.settle(pending.slice(0, mid));
            await this.settle(pending.slice(mid));
          } else {
            events.rejected(pending[0]!, { error: message, statusCode: (err as { status?: number }).status });
          }
          return;
        }
        if (verdict === 'rate') {
          this.window.rateLimited();
          rateLimited += 1;
          if (this.opts.signal.aborted) rateLimitedAfterAbort = true;
          const wait = (err as { retryAfterMs?: number }).retryAfterMs ?? this.backoff(rateLimited);
          if (wait > MAX_PAUSE_MS || this.clock.now() - this.lastSuccessAt > MAX_PAUSE_MS) {
            this.fatal ??= err as MailroomError;
            continue;
          }
          this.pause(wait);
          events.retried?.({ reason: 'rate limited (429)', status: 429, delayMs: wait });
          continue;
        }
        // No answer (a lost one, a timeout), a 5xx or an unreadable 2xx: the API may have taken them.
        if (!(err instanceof ConnectionError && failedBeforeSending(err.code))) for (const e of pending) mayHaveReached.add(e);
        attempts += 1;
        this.consecutiveFailures += 1;
        if (this.consecutiveFailures >= this.breakerLimit) {
          this.fatal ??= isMailroomError(err) ? err : new MailroomError('connection', message, { cause: err });
          continue;
        }
        const retryAfter = (err as { retryAfterMs?: number }).retryAfterMs;
        if (attempts >= this.maxAttempts || (retryAfter ?? 0) > MAX_RETRY_AFTER_MS) {
          if (!this.anySuccess) {
            // Not one request of the run got through: the API is unreachable, not this request's problem.
            this.fatal ??= isMailroomError(err) ? err : new MailroomError('connection', message, { cause: err });
            continue;
          }
          if (this.opts.signal.aborted) leaveStopped('interrupted');
          else for (const e of pending) events.uncertain(e, `gave up after ${attempts} attempts: ${message}`);
          return;
        }
        const delay = retryAfter ?? this.backoff(attempts);
        events.retried?.({ reason: message, status: (err as { status?: number }).status, delayMs: delay });
        await this.sleep(delay);
        continue;
      }
      this.window.succeeded();
      this.consecutiveFailures = 0;
      this.lastSuccessAt = this.clock.now();
      this.anySuccess = true;
      const matched = matchBatch(emails, answer);
      for (const { pos, result } of matched.successful) events.sent(pending[pos]!, result);
      for (const { pos, result, other } of matched.conflicts) {
        const key = pending[pos]!.email.idempotencyKey ?? '';
        events.rejected(pending[pos]!, { error: new IdempotencyConflictError(key, result, other, CONFLICT_HINT).message });
      }
      // Every entry answered, as almost every answer does: nothing to send again.
      if (matched.unknown.length === 0 && matched.failed.length === 0) return;
      const again = [...matched.unknown];
      for (const pos of matched.unknown) mayHaveReached.add(pending[pos]!);
      for (const { pos, failure } of matched.failed) {
        const status = failure.statusCode;
        // About the account, not the entry (the monthly limit, the key, the rate, the service):
        // the entry stays unsent (not journaled) so a resume sends it.
        if (status === 401 || status === 403) {
          this.fatal ??= new ApiError({ status, body: failure });
          again.push(pos);
        } else if (status === 429 || (status !== undefined && status >= 500)) {
          if (status === 429) {
            this.window.rateLimited();
            this.pause(this.backoff(unknownRounds + 1));
          }
          again.push(pos);
        } else {
          events.rejected(pending[pos]!, failureReason(failure));
        }
      }
      pending = again.sort((a, b) => a - b).map((pos) => pending[pos]!);
      if (pending.length === 0) return;
      unknownRounds += 1;
      if (unknownRounds > this.maxUnknownRounds) {
        for (const e of pending) events.uncertain(e, `the API's answers never included this entry (${unknownRounds} tries)`);
        return;
      }
    }
  }

  private pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + ms);
  }

  private async waitForPause(): Promise<void> {
    const wait = this.pausedUntil - this.clock.now();
    if (wait > 0) await this.sleep(wait);
  }

  /** The transport's backoff (full jitter), attempt 1 being the first retry. */
  private backoff(attempt: number): number {
    return backoffMs(attempt - 1, this.random, this.backoffMs);
  }

  /** Sleeps, waking early on Ctrl-C. */
  private sleep(ms: number): Promise<void> {
    return this.clock.sleep(ms, this.opts.signal);
  }
}

/**
 * What an error from one batch request means for the run. 401/403 and the monthly limit are the
 * same for every request (stop); 404 means the URL is wrong (stop); other 4xx are about the
 * payload (split and retry alone); 429 slows down; 5xx, connection errors, timeouts and a 2xx
 * body we could not read are worth another attempt.
 */
export function classify(err: unknown): Verdict {
  if (!isMailroomError(err)) return 'transient';
  const status = (err as { status?: unknown }).status;
  if (typeof status === 'number') {
    if (status === 429) return 'rate';
    if (status === 404 || status === 401 || status === 403) return 'fatal';
    if (status >= 400 && status < 500) return 'split';
    return 'transient';
  }
  if (['authentication', 'permission', 'rate-limit', 'sending-limit', 'validation'].includes(err.kind)) return 'fatal';
  return 'transient';
}

function failureReason(f: BatchFailure): { error: string; statusCode?: number } {
  const label = f.error && f.statusCode ? `${f.statusCode} ${f.error}: ` : '';
  return { error: `${label}${f.message}`, statusCode: f.statusCode };
}
