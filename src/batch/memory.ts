import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const FULL_GC_EVERY_MS = 250;

/**
 * Keeps a long run's peak memory where a short run's is. V8 sizes its heap for throughput: over
 * a million entries it grows the young generation from 1 to 16 MiB semi-spaces and lets promoted
 * garbage pile up in the old one, so peak RSS rose ~1.6x between 10,000 and 1,000,000 entries
 * while live data stayed a few MiB. Pinning the young generation's growth (a flag V8 reads each
 * time it resizes) and a full collection every quarter second (a few ms on a heap this small)
 * hold it flat. Without `gc` (a runtime that refuses the flags) it simply does nothing.
 */
export function heapKeeper(): () => void {
  let gc: (() => void) | undefined;
  try {
    setFlagsFromString('--semi-space-growth-factor=1');
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  } catch {
    gc = undefined;
  }
  let last = Date.now();
  return () => {
    if (!gc) return;
    const now = Date.now();
    if (now - last < FULL_GC_EVERY_MS) return;
    last = now;
    gc();
  };
}
