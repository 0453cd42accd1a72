import type { Clock, IO } from '../context.js';
import { figure } from '../plural.js';
import type { BatchProgress as PublicBatchProgress } from '../types.js';

/**
 * What the bar shows of a batch run's live counts: the library's public BatchProgress plus what it
 * needs to estimate the total (`bytesTotal`, a file's size) and the rate. The engine
 * (src/batch/run.ts) reports them in a type of its own, of the same shape: it imports no printer.
 */
export interface BatchProgress extends PublicBatchProgress {
  bytesRead: number;
  /** Input size in bytes, when it is a file. */
  bytesTotal: number | undefined;
  startedAt: number;
}

export interface ProgressView {
  /** `final`: the input is read to its end, so the total is exact. */
  update(p: BatchProgress, final?: boolean): void;
  stop(): void;
}

const REDRAW_MS = 100;
const BAR_WIDTH = 24;
const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';
const CLEAR_RIGHT = '\x1b[K';

/**
 * A one-line bar on stderr (a terminal): entries settled of the (estimated) total, sent, failed,
 * rate and ETA. The total is estimated from the bytes consumed so far until the input is read to
 * its end; the percentage counts settled entries only, so it never runs ahead of the counts.
 *
 * On Ctrl-C (`signal`) the bar redraws once with what it last showed (wiping the terminal's `^C`
 * echo) and then stays as it is: main.ts ends its line before anything else is printed.
 */
export function createProgressBar(io: IO, signal: AbortSignal): ProgressView {
  let last = 0;
  let line: string | undefined;
  let frozen = false;
  const draw = () => {
    if (line === undefined) return;
    const width = io.errColumns;
    // Never wider than the terminal: a wrapped bar could not be redrawn in place.
    const text = width !== undefined && line.length >= width ? line.slice(0, Math.max(width - 1, 0)) : line;
    io.err.write(`\r${text}${CLEAR_RIGHT}`);
  };
  const freeze = () => {
    if (frozen) return;
    frozen = true;
    draw();
    io.err.write(SHOW_CURSOR);
  };
  signal.addEventListener('abort', freeze, { once: true });
  return {
    update(p, final = false) {
      if (frozen) return;
      const t = Date.now();
      if (!final && t - last < REDRAW_MS) return;
      last = t;
      if (line === undefined) io.err.write(HIDE_CURSOR);
      line = format(p, final, t);
      draw();
    },
    stop() {
      signal.removeEventListener('abort', freeze);
      if (frozen || line === undefined) return;
      frozen = true;
      io.err.write(`\n${SHOW_CURSOR}`);
    },
  };
}

/** What both views show: the percentage settled (undefined while the total is unknown), the send rate and the ETA. */
function measure(p: BatchProgress, final: boolean, now: number, startedAt = p.startedAt) {
  const settled = p.sent + p.failed + p.skipped;
  // Before the first bytes are consumed a file's total is unknown: 0%, not settled/read.
  const unknown = !final && p.bytesTotal !== undefined && p.bytesRead === 0;
  const estimate = final || !p.bytesTotal || p.bytesRead === 0 ? p.read : Math.round((p.read * p.bytesTotal) / p.bytesRead);
  const total = unknown ? Infinity : Math.max(estimate, p.read, settled, 1);
  // Floored, and short of 100 until the input is read and every entry settled.
  let percent = Math.floor((settled / total) * 100);
  if (percent === 100 && !(final && settled === total)) percent = 99;
  const seconds = (now - startedAt) / 1000;
  const rate = seconds > 0 ? Math.round(p.sent / seconds) : 0;
  const left = total - settled;
  // Seconds left; undefined when it cannot be told yet.
  const eta = unknown ? undefined : left === 0 ? 0 : rate > 0 && (final || p.bytesTotal !== undefined) ? Math.ceil(left / rate) : undefined;
  // Read from stdin, the total is known only at the end: no percentage to pace lines by.
  const known = final || p.bytesTotal !== undefined;
  return { percent, known, rate, eta, seconds };
}

function format(p: BatchProgress, final: boolean, now: number): string {
  const { percent, rate, eta: left } = measure(p, final, now);
  const eta = left === undefined ? '?' : `${left}s`;
  const filled = Math.round((percent / 100) * BAR_WIDTH);
  const bar = '█'.repeat(filled) + '░'.repeat(BAR_WIDTH - filled);
  const skipped = p.skipped ? `, ${figure(p.skipped)} skipped` : '';
  return `${bar} ${percent}% | ${figure(p.sent)} sent, ${figure(p.failed)} failed${skipped} | ${figure(rate)}/s, ${figure(p.concurrency)} in flight | ETA ${eta}`;
}

const realClock: Clock = {
  now: () => Date.now(),
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    // A batch that has finished must not wait for the next line.
    timer.unref();
    return () => clearInterval(timer);
  },
};

/** At least this long between two progress lines, */
export const LINE_EVERY_MS = 10_000;
/** and at least this many percentage points, when the total is known (whichever is rarer). */
export const LINE_EVERY_PERCENT = 10;
/** A run that moves less than that still says it is alive this often (CI services end a job silent for 10 minutes). */
export const LINE_AT_LEAST_MS = 5 * 60_000;

/**
 * Progress for a stderr that is not a terminal (a CI log, a file): no bar redrawn in place, but a
 * plain line at a steady pace, every 10 seconds or every 10 percent, whichever is rarer (every 10
 * seconds while the total is unknown, and at least every 5 minutes however little moved), so a long
 * batch is not silent until its summary. Checked on a timer too: a run waiting on retries still
 * gets its line.
 */
export function createProgressLines(io: IO, pace: Clock = realClock): ProgressView {
  // The run's progress object (updated in place) and whether it is the last: two fields, not an object per update (one per entry).
  let latest: BatchProgress | undefined;
  let latestFinal = false;
  let startedAt: number | undefined;
  let lastAt: number | undefined;
  let lastPercent = 0;
  const check = () => {
    if (!latest) return;
    const now = pace.now();
    const since = now - (lastAt ?? startedAt ?? now);
    if (since < LINE_EVERY_MS) return;
    // Timed by this view's clock from the first update, so a test's clock paces the lines and their figures alike.
    const m = measure(latest, latestFinal, now, startedAt);
    if (m.known && m.percent - lastPercent < LINE_EVERY_PERCENT && since < LINE_AT_LEAST_MS) return;
    lastAt = now;
    lastPercent = m.percent;
    const p = latest;
    const skipped = p.skipped ? `, ${figure(p.skipped)} skipped` : '';
    const settled = figure(p.sent + p.failed + p.skipped);
    const where = m.known ? `${m.percent}% (${settled} of ${latestFinal ? figure(p.read) : `about ${figure(estimateTotal(p))}`})` : `${settled} so far`;
    const eta = m.known && m.eta !== undefined ? `, ETA ${duration(m.eta)}` : '';
    io.err.write(`batch: ${where}: ${figure(p.sent)} sent, ${figure(p.failed)} failed${skipped}, ${figure(m.rate)}/s${eta}, ${duration(m.seconds)} elapsed\n`);
  };
  const stopTimer = pace.every(LINE_EVERY_MS, check);
  return {
    update(p, final = false) {
      startedAt ??= pace.now();
      latest = p;
      latestFinal = final;
      check();
    },
    stop() {
      stopTimer();
    },
  };
}

function estimateTotal(p: BatchProgress): number {
  return !p.bytesTotal || p.bytesRead === 0 ? p.read : Math.max(Math.round((p.read * p.bytesTotal) / p.bytesRead), p.read);
}

function duration(seconds: number): string {
  const s = Math.floor(seconds);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}
