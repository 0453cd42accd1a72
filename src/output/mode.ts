import type { Context, Globals } from '../context.js';

export interface OutputMode {
  /** 'table' for people at a terminal; 'json' when piped or with --json. */
  format: 'table' | 'json';
  /** -q: print nothing on success. */
  quiet: boolean;
  color: boolean;
}

export function outputMode(ctx: Pick<Context, 'io'>, globals: Pick<Globals, 'json' | 'quiet'>): OutputMode {
  const json = Boolean(globals.json) || !ctx.io.isStdoutTTY;
  return { format: json ? 'json' : 'table', quiet: Boolean(globals.quiet), color: ctx.io.color && !json };
}
