import type { Context } from '../context.js';

/**
 * For commands that serve until told to stop (sandbox, webhooks listen): resolves on Ctrl-C (the
 * context's signal), on SIGTERM (`kill`, a supervisor), and, with `orOutputClosed`, when stdout's
 * reader goes away (`listen | head`), so each ends cleanly instead of being killed mid-write.
 * Listens from the call on, so call it before printing anything.
 */
export function untilStopped(ctx: Context, opts: { orOutputClosed?: boolean } = {}): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGTERM', stop);
      ctx.signal.removeEventListener('abort', stop);
      if (opts.orOutputClosed) ctx.io.out.off('error', stop);
      resolve();
    };
    if (ctx.signal.aborted) return resolve();
    ctx.signal.addEventListener('abort', stop);
    process.on('SIGTERM', stop);
    if (opts.orOutputClosed) ctx.io.out.on('error', stop);
  });
}
