import type { IO } from '../context.js';
import type { BatchProgress as PublicBatchProgress } from '../types.js';

/**
 * A batch run's live counts (src/batch/run.ts reports them, the bar shows them): the library's
 * public BatchProgress plus what the bar needs to estimate the total (`bytesTotal`, a file's size)
 * and the rate.
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

function format(p: BatchProgress, final: boolean, now: number): string {
  const settled = p.sent + p.failed + p.skipped;
  // Before the first bytes are consumed a file's total is unknown: 0%, not settled/read.
  const unknown = !final && p.bytesTotal !== undefined && p.bytesRead === 0;
  const estimate = final || !p.bytesTotal || p.bytesRead === 0 ? p.read : Math.round((p.read * p.bytesTotal) / p.bytesRead);
  const total = unknown ? Infinity : Math.max(estimate, p.read, settled, 1);
  // Floored, and short of 100 until the input is read and every entry settled.
  let percent = Math.floor((settled / total) * 100);
  if (percent === 100 && !(final && settled === total)) percent = 99;
  const filled = Math.round((percent / 100) * BAR_WIDTH);
  const bar = '█'.repeat(filled) + '░'.repeat(BAR_WIDTH - filled);
  const seconds = (now - p.startedAt) / 1000;
  const rate = seconds > 0 ? Math.round(p.sent / seconds) : 0;
  const left = total - settled;
  const eta = unknown ? '?' : left === 0 ? '0s' : rate > 0 && (final || p.bytesTotal !== undefined) ? `${Math.ceil(left / rate)}s` : '?';
  const skipped = p.skipped ? `, ${p.skipped} skipped` : '';
  return `${bar} ${percent}% | ${p.sent} sent, ${p.failed} failed${skipped} | ${rate}/s, ${p.concurrency} in flight | ETA ${eta}`;
}
