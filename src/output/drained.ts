import type { Writable } from 'node:stream';

/**
 * A stream holding more than it wants (a pipe whose reader is slow): resolves once it has taken it,
 * or closed (a reader gone); undefined when nothing waits. A writer of long output awaits it between
 * pieces, so a reader that waits makes the writer wait instead of the output piling up in memory.
 */
export function drained(stream: Writable): Promise<void> | undefined {
  if (!stream.writableNeedDrain || stream.destroyed) return undefined;
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      stream.off('error', done);
      resolve();
    };
    stream.once('drain', done);
    stream.once('close', done);
    stream.once('error', done);
  });
}
