import type { Context, Globals } from '../context.js';
import { figure } from '../plural.js';

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

/** Rows a list shows on a terminal when not told how many: about a screenful, quick to print. */
export const TERMINAL_ROWS = 50;

/**
 * How many rows a list prints when its user gave no count (`--last`, `--limit`) and no `--all`:
 * TERMINAL_ROWS on a terminal, where 9,507 rows help nobody and take seconds to scroll past;
 * everything when piped or under --json, where a script reads them all. Undefined: every row.
 */
export function defaultListLimit(mode: OutputMode, asked: { all?: boolean; count?: number }): number | undefined {
  if (asked.count !== undefined) return asked.count;
  if (asked.all || mode.format !== 'table' || mode.quiet) return undefined;
  return TERMINAL_ROWS;
}

/** The note under a table that shows fewer rows than there are: how many, and, when it was the default, how to see the rest. */
export function listNote(shown: number, total: number, opts: { byDefault: boolean; countFlag: string }): string | undefined {
  if (shown >= total) return undefined;
  const of = `Showing the newest ${figure(shown)} of ${figure(total)}`;
  return opts.byDefault ? `${of}: --all shows every one, ${opts.countFlag} <n> another number.\n` : `${of}.\n`;
}
