import type { Context, GlobalOptions } from '../context.js';

/** How a command shows its result: nothing (-q), JSON (piped or --json), or a human view (terminal). */
export type ViewMode = 'quiet' | 'json' | 'human';

export function viewMode(ctx: Context, globals: GlobalOptions): ViewMode {
  if (globals.quiet) return 'quiet';
  if (globals.json || !ctx.io.isStdoutTTY) return 'json';
  return 'human';
}

export function writeJson(ctx: Context, value: unknown): void {
  ctx.io.out.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** `label  value` lines, labels aligned; undefined values are left out. */
export async function writeFields(ctx: Context, fields: ReadonlyArray<readonly [string, unknown]>): Promise<void> {
  const shown = fields.filter(([, v]) => v !== undefined && v !== null && v !== '');
  const width = Math.max(0, ...shown.map(([k]) => k.length));
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: ctx.io.color ? 1 : 0 });
  for (const [k, v] of shown) ctx.io.out.write(`${chalk.bold(k.padEnd(width))}  ${Array.isArray(v) ? v.join(', ') : String(v)}\n`);
}

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

/** A table with a header row; an empty list prints `empty` instead. */
export async function writeTable<T>(ctx: Context, columns: ReadonlyArray<Column<T>>, rows: readonly T[], empty: string): Promise<void> {
  if (rows.length === 0) {
    ctx.io.out.write(`${empty}\n`);
    return;
  }
  const [{ default: Table }, { Chalk }] = await Promise.all([import('cli-table3'), import('chalk')]);
  const chalk = new Chalk({ level: ctx.io.color ? 1 : 0 });
  const table = new Table({
    head: columns.map((c) => chalk.bold(c.header)),
    style: { head: [], border: [], compact: true },
    chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ' },
  });
  for (const row of rows) {
    table.push(columns.map((c) => {
      const v = c.value(row);
      return v === undefined || v === null ? '' : Array.isArray(v) ? v.join(', ') : String(v);
    }));
  }
  ctx.io.out.write(`${table.toString().split('\n').map((l) => l.trimEnd().replace(/^ /, '')).join('\n')}\n`);
}
