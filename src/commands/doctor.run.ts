import type { CommandContext } from './context.js';
import { QuietExit } from '../errors.js';
import { outputMode, palette, printJson } from '../output/index.js';
import { oneLine } from '../output/one-line.js';
import { underColumn } from '../output/wrap.js';
import { checkDetail, diagnose, type Diagnosis } from './shared/diagnose.js';

/** Exits with the code of the first needed check that failed; what failed is already printed. */
export async function run(_opts: Record<string, never>, ctx: CommandContext): Promise<void> {
  const d = await diagnose(ctx);
  const code = await printDoctor(ctx, d);
  if (code !== 0) throw new QuietExit(code, d.failed && checkDetail(d.failed));
}

export async function runDoctor(ctx: CommandContext): Promise<number> {
  return printDoctor(ctx, await diagnose(ctx));
}

async function printDoctor(ctx: CommandContext, d: Diagnosis): Promise<number> {
  const { globals } = ctx;
  if (globals.quiet) return d.exitCode;
  const mode = outputMode(ctx, globals);
  if (mode.format === 'json') {
    printJson(ctx, { ok: d.exitCode === 0, checks: d.checks.map(({ exitCode: _code, ...c }) => c) });
    return d.exitCode;
  }
  const c = await palette(mode.color);
  const paint = { ok: c.green, warn: c.yellow, fail: c.red };
  const width = Math.max(...d.checks.map((k) => k.name.length));
  for (const check of d.checks) {
    // On a narrow terminal the detail and the fix go on under their own column, never under the names.
    ctx.io.out.write(`${paint[check.status](check.status.padEnd(4))}  ${check.name.padEnd(width)}  ${underColumn(oneLine(check.detail), width + 8, ctx.io.outColumns)}\n`);
    if (check.fix && check.status !== 'ok') ctx.io.out.write(`      fix: ${underColumn(oneLine(check.fix), 11, ctx.io.outColumns)}\n`);
  }
  return d.exitCode;
}
