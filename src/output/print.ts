import type { Context, Globals } from '../context.js';
import { palette } from './color.js';
import { selectFields } from './fields.js';
import { relativeTime, shortRelativeTime } from './relative-time.js';
import { redactValue } from '../secrets.js';
import { oneLine } from './one-line.js';
import { outputMode } from './mode.js';
import { holdResult } from './document.js';
import { underColumn } from './wrap.js';

/**
 * The command's JSON result (src/output/document.ts writes it, one document, two-space indented:
 * readable, and jq takes it as is), with only the fields of `--json <fields>` (checked before the
 * command ran: src/commands/shared/json-fields.ts). Secret fields are masked here, as values (the stream
 * guard then sees text only), except a secret deliberately revealed once (a new key).
 */
export function printJson(ctx: Pick<Context, 'io' | 'jsonFields' | 'document'>, value: unknown): void {
  const shown = redactValue(value, { allowRevealed: true });
  holdResult(ctx, ctx.jsonFields ? selectFields(shown, ctx.jsonFields).value : shown);
}

export interface Column<R> {
  header: string;
  value: (row: R) => string | number | boolean | null | undefined;
  /**
   * `text`: free text (names, URLs, event lists), shortened with … to fit the terminal; `date`: an ISO
   * time, shown relative ("2 hours ago"). Otherwise (ids, status) the value is always shown whole.
   */
  kind?: 'text' | 'date';
}

/** Columns between table columns. */
const GAP = 2;
/** Free text is not shortened below this: a table that would need it is laid out another way (printTable). */
const MIN_TEXT = 8;

/**
 * A human table on stdout (cli-table3, loaded on use), one line per row at most as wide as the
 * terminal: whole ids and dates, free text shortened with …, columns with no value in any row left
 * out. When that is still too wide, dates take their short form (`3m ago`); when even that is, each
 * row becomes a block of `LABEL  value` lines (ids still whole), so no line ever wraps. An empty
 * list says so instead.
 */
export async function printTable<R>(ctx: Pick<Context, 'io'>, rows: readonly R[], columns: readonly Column<R>[], empty = 'nothing to show'): Promise<void> {
  const c = await palette(ctx.io.color);
  if (rows.length === 0) {
    ctx.io.out.write(`${c.dim(empty)}\n`);
    return;
  }
  // Masked before cells are cut to width: a secret cut short no longer looks like one.
  const safe = rows.map((row) => redactValue(row, { allowRevealed: true }));
  const values = columns.map((col) => ({ col, values: safe.map((row) => col.value(row)) }));
  const kept = values.filter(({ col, values: vs }) => vs.some((v) => shown(col, v) !== '-'));
  const width = ctx.io.outColumns;
  for (const short of [false, true]) {
    const cols = kept.map(({ col, values: vs }) => ({ col, cells: vs.map((v) => shown(col, v, short)) }));
    const widths = fit(
      cols.map(({ col, cells }) => ({ natural: Math.max(col.header.length, ...cells.map((v) => v.length)), shrinks: col.kind === 'text' })),
      width,
    );
    if (width !== undefined && widths.reduce((sum, w) => sum + w + GAP, -GAP) > width) continue;
    const { default: Table } = await import('cli-table3');
    const table = new Table({
      head: cols.map(({ col }) => c.bold(col.header)),
      colWidths: widths.map((w) => w + GAP),
      wordWrap: false,
      truncate: '…',
      style: { head: [], border: [], compact: true, 'padding-left': 0, 'padding-right': GAP },
      chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '' },
    });
    for (let r = 0; r < rows.length; r++) table.push(cols.map(({ cells }) => cells[r] as string));
    ctx.io.out.write(`${table.toString().replace(/[ \t]+$/gm, '')}\n`);
    return;
  }
  // Too narrow for the whole columns side by side (40 or 50 columns): one block of lines per row,
  // each value whole, wrapped under its column.
  const labelWidth = Math.max(...kept.map(({ col }) => col.header.length));
  const blocks = safe.map((_, r) =>
    kept
      .map(({ col, values: vs }) => `${c.dim(col.header.padEnd(labelWidth))}${' '.repeat(GAP)}${underColumn(shown(col, vs[r]), labelWidth + GAP, width)}`.replace(/[ \t]+$/, ''))
      .join('\n'),
  );
  ctx.io.out.write(`${blocks.join('\n\n')}\n`);
}

/**
 * Column widths for a line of at most `columns`: whole columns keep their width; the free-text ones
 * share what is left, the narrowest first getting all it needs (none below MIN_TEXT).
 */
function fit(cols: readonly { natural: number; shrinks: boolean }[], columns: number | undefined): number[] {
  const widths = cols.map((col) => col.natural);
  const total = widths.reduce((a, b) => a + b, 0) + GAP * (cols.length - 1);
  if (columns === undefined || total <= columns) return widths;
  const flexible = cols.map((col, i) => ({ ...col, i })).filter((col) => col.shrinks).sort((a, b) => a.natural - b.natural);
  let room = columns - (total - flexible.reduce((sum, col) => sum + col.natural, 0));
  flexible.forEach((col, n) => {
    const share = Math.floor(room / (flexible.length - n));
    widths[col.i] = Math.max(MIN_TEXT, Math.min(col.natural, share));
    room -= widths[col.i] as number;
  });
  return widths;
}

/**
 * `label  value` lines with aligned values, for one object on a terminal; a value too long for the
 * terminal goes on under its column, never under the labels. Absent (undefined or null) values are skipped.
 */
export async function printKeyValues(ctx: Pick<Context, 'io'>, pairs: readonly (readonly [string, unknown, 'date'?])[]): Promise<void> {
  const c = await palette(ctx.io.color);
  const shownPairs = pairs.filter(([, v]) => v !== undefined && v !== null);
  const width = Math.max(0, ...shownPairs.map(([k]) => k.length));
  for (const [k, v, kind] of shownPairs) {
    const text = kind === 'date' && typeof v === 'string' && relativeTime(v) !== v ? `${relativeTime(v)} (${v})` : cell(v);
    ctx.io.out.write(`${c.dim(k.padEnd(width))}  ${underColumn(text, width + 2, ctx.io.outColumns)}\n`);
  }
}

function shown<R>(col: Column<R>, v: unknown, short = false): string {
  if (col.kind !== 'date' || typeof v !== 'string' || v === '') return cell(v);
  return short ? shortRelativeTime(v) : relativeTime(v);
}

/** A value as table or key/value text: one line, a server's control characters escaped. */
function cell(v: unknown): string {
  if (v === undefined || v === null || v === '') return '-';
  if (Array.isArray(v)) return oneLine(v.join(', '));
  if (typeof v === 'object') return JSON.stringify(v);
  return oneLine(String(v));
}

/**
 * A list as every listing command prints it: nothing with -q, JSON with --json, else a table. In
 * JSON every list is one object (docs/input-and-output.md, "Lists"): `{ "items": [...], "hasMore":
 * false }`, with what a list knows beside them in `page` (`hasMore` when more exist than listed,
 * a cursor, a total). True when it printed a table, after which a command may add a note for
 * people (on stderr).
 */
export async function printRows<R>(
  ctx: Pick<Context, 'io' | 'jsonFields' | 'document'>,
  globals: Pick<Globals, 'json' | 'quiet'>,
  rows: readonly R[],
  columns: readonly Column<R>[],
  opts: { empty?: string; page?: { hasMore?: boolean } & Record<string, unknown> } = {},
): Promise<boolean> {
  const mode = outputMode(ctx, globals);
  if (mode.quiet) return false;
  if (mode.format === 'json') {
    printJson(ctx, { items: rows, hasMore: false, ...opts.page });
    return false;
  }
  await printTable(ctx, rows, columns, opts.empty);
  return true;
}
