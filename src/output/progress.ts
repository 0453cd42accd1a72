import type { IO } from '../context.js';

/** What the bar shows; `bytesTotal` (a file's size) lets it estimate the entry total before the end. */
export interface ProgressCounts {
  read: number;
  sent: number;
  failed: number;
  skipped: number;
  bytesRead: number;
  bytesTotal: number | undefined;
  startedAt: number;
  concurrency: number;
}

export interface ProgressView {
  update(p: ProgressCounts, final?: boolean): void;
  stop(): void;
}

const REDRAW_MS = 100;

/**
 * A one-line bar on stderr (cli-progress, loaded only when stderr is a terminal): sent, failed,
 * rate and ETA. The total is estimated from the bytes read so far until the input is fully read.
 */
export async function createProgressBar(io: IO): Promise<ProgressView> {
  const mod = await import('cli-progress');
  // A CommonJS module: bundled, its exports arrive under `default`.
  const { SingleBar } = (mod as unknown as { default?: typeof mod }).default ?? mod;
  const bar = new SingleBar(
    {
      stream: io.err as NodeJS.WriteStream,
      format: '{bar} {percentage}% | {sent} sent, {failed} failed{skipped} | {rate}/s, {concurrency} in flight | ETA {etaText}',
      barsize: 24,
      hideCursor: true,
      clearOnComplete: false,
      noTTYOutput: false,
      fps: 10,
      etaBuffer: 50,
      barCompleteChar: '█',
      barIncompleteChar: '░',
    },
  );
  let started = false;
  let last = 0;
  return {
    update(p, final = false) {
      const t = Date.now();
      if (!final && t - last < REDRAW_MS) return;
      last = t;
      const settled = p.sent + p.failed + p.skipped;
      const estimate = final || !p.bytesTotal || p.bytesRead === 0 ? p.read : Math.round((p.read * p.bytesTotal) / p.bytesRead);
      const total = Math.max(estimate, settled, 1);
      const seconds = (t - p.startedAt) / 1000;
      const rate = seconds > 0 ? Math.round(p.sent / seconds) : 0;
      const left = total - settled;
      const etaText = rate > 0 && p.bytesTotal !== undefined ? `${Math.ceil(left / rate)}s` : '?';
      const payload = { sent: p.sent, failed: p.failed, skipped: p.skipped ? `, ${p.skipped} skipped` : '', rate, etaText, concurrency: p.concurrency };
      if (!started) {
        bar.start(total, settled, payload);
        started = true;
      } else {
        bar.setTotal(total);
        bar.update(settled, payload);
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
