import type { Context } from '../context.js';
import { interruptedError } from '../errors.js';

/**
 * Stdin for a `-` flag. On a terminal it first says what it waits for (a silent wait looks like a
 * hang), and the first Ctrl-C ends the read: main.ts turns SIGINT into `ctx.signal`, which a pending
 * read on process.stdin never sees by itself.
 */
export function stdinFor(ctx: Pick<Context, 'io' | 'signal'>, what: string): AsyncIterable<Buffer | string> {
  return {
    async *[Symbol.asyncIterator]() {
      if (ctx.io.isStdinTTY) ctx.io.err.write(`mailroom: reading ${what} from stdin; end with Ctrl-D\n`);
      yield* untilAborted(ctx.io.in, ctx.signal);
    },
  };
}

async function* untilAborted<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  let onAbort = () => undefined as void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(interruptedError('nothing was read from stdin'));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  const it = source[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      const next = await Promise.race([it.next(), aborted]);
      if (next.done) {
        finished = true;
        if (signal.aborted) throw interruptedError('nothing was read from stdin');
        return;
      }
      yield next.value;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (!finished) void it.return?.()?.catch(() => undefined);
  }
}
