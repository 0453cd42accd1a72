import type { Context } from '../context.js';
import { palette } from './color.js';

/** JSON on stdout, one document, two-space indented (readable, and jq takes it as is). */
export function printJson(ctx: Pick<Context, 'io'>, value: unknown): void {
  ctx.io.out.write(`${JSON.stringify(value, null, 2)}\n`);
}

export interface Column<R> {
  header: string;
  value: (row: R) => string | number | boolean | null | undefined;
}

/** A human table on stdout (cli-table3, loaded on use). An empty list says so instead. */
export async function printTable<R>(ctx: Pick<Context, 'io'>, rows: readonly R[], columns: readonly Column<R>[], empty = 'nothing to show'): Promise<void> {
  const c = await palette(ctx.io.color);
  if (rows.length === 0) {
    ctx.io.out.write(`${c.dim(empty)}\n`);
    return;
  }
  const { default: Table } = await import('cli-table3');
  const table = new Table({
    head: columns.map((col) => c.bold(col.header)),
    style: { head: [], border: [], compact: true, 'padding-left': 0, 'padding-right': 2 },
    chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '' },
  });
  for (const row of rows) table.push(columns.map((col) => cell(col.value(row))));
  ctx.io.out.write(`${table.toString().replace(/[ \t]+$/gm, '')}\n`);
}

/** `label  value` lines with aligned values, for one object on a terminal. Absent (undefined or null) values are skipped. */
export async function printKeyValues(ctx: Pick<Context, 'io'>, pairs: readonly (readonly [string, unknown])[]): Promise<void> {
  const c = await palette(ctx.io.color);
  const shown = pairs.filter(([, v]) => v !== undefined && v !== null);
  const width = Math.max(0, ...shown.map(([k]) => k.length));
  for (const [k, v] of shown) ctx.io.out.write(`${c.dim(k.padEnd(width))}  ${cell(v)}\n`);
}

function cell(v: unknown): string {
  if (v === undefined || v === null || v === '') return '-';
  if (Array.isArray(v)) return v.join(', ');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}
