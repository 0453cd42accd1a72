import { getHeapSpaceStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { setV8Flag } from '../v8-flags.js';

const CHECK_EVERY_MS = 100;
const FULL_GC_EVERY_MS = 500;
/** The young generation a 10,000-entry run reaches anyway; growth past it is what a long run adds. */
const NEW_SPACE_CAP = 8 * 1024 * 1024;

/**
 * Keeps a long run's peak memory where a short run's is. V8 sizes its heap for throughput: over
 * a million entries it grows the young generation to 16 MiB semi-spaces and lets promoted garbage
 * pile up in the old one, so peak RSS rose ~1.6x between 10,000 and 1,000,000 entries while live
 * data stayed a few MiB. Once the young generation reaches the size a short run has, its growth is
 * pinned (V8 reads the growth factor each time it resizes), and a full collection runs twice a
 * second (a few ms on a heap this small). A runtime that refuses the flags simply skips this.
 * Returns the function that stops it (the run's end).
 */
export function heapKeeper(): () => void {
  let gc: (() => void) | undefined;
  try {
    setV8Flag('--expose-gc', ['--no-expose-gc']);
    gc = runInNewContext('gc') as () => void;
  } catch {
    return () => undefined;
  }
  let pinned = false;
  let lastGc = Date.now();
  // A timer of its own, not a check the batch loop makes every so many entries: code in that loop
  // that runs for the first time after V8 optimised it (the first full collection, at 500 ms)
  // throws the optimised loop away and has it compiled again (20 ms of a 20,000-entry batch).
  const timer = setInterval(() => {
    const now = Date.now();
    if (!pinned && (getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0) >= NEW_SPACE_CAP) {
      setV8Flag('--semi-space-growth-factor=1', ['--semi-space-growth-factor=2']);
      pinned = true;
    }
    if (now - lastGc >= FULL_GC_EVERY_MS) {
      lastGc = now;
      gc?.();
    }
  }, CHECK_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
