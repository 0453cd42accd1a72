import type { Context } from './context.js';

/** What stopped a serving command: Ctrl-C (exit 130), SIGTERM (a supervisor: exit 0), or stdout's reader leaving. */
export type StopReason = 'interrupted' | 'terminated' | 'output closed' | 'ended';

/**
 * For commands that serve until told to stop (sandbox, webhooks listen): resolves on Ctrl-C (the
 * context's signal), on SIGTERM (`kill`, a supervisor), and, with `orOutputClosed`, when stdout's
 * reader goes away (`listen | head`), so each ends cleanly instead of being killed mid-write. The
 * reason decides the exit code: 130 after Ctrl-C, as for every command; 0 after SIGTERM, the
 * ordinary way to stop a service. Listens from the call on, so call it before printing anything.
 */
export function untilStopped(ctx: Context, opts: { orOutputClosed?: boolean; orEnded?: AbortSignal } = {}): Promise<StopReason> {
  return new Promise((resolve) => {
    const stopBy = (reason: StopReason) => () => {
      process.off('SIGTERM', onTerm);
      ctx.signal.removeEventListener('abort', onAbort);
      opts.orEnded?.removeEventListener('abort', onEnded);
      if (opts.orOutputClosed) ctx.io.out.off('error', onClosed);
      resolve(reason);
    };
    const onAbort = stopBy('interrupted');
    const onTerm = stopBy('terminated');
    const onClosed = stopBy('output closed');
    // The command's own reason to stop (webhooks listen --exec: the app it started has exited).
    const onEnded = stopBy('ended');
    if (ctx.signal.aborted) return resolve('interrupted');
    if (opts.orEnded?.aborted) return resolve('ended');
    ctx.signal.addEventListener('abort', onAbort);
    opts.orEnded?.addEventListener('abort', onEnded);
    process.on('SIGTERM', onTerm);
    if (opts.orOutputClosed) ctx.io.out.on('error', onClosed);
  });
}
