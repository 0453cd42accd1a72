import type { CommandContext } from '../context.js';
import { QuietExit } from '../../errors.js';
import { EXIT } from '../../exit-codes.js';
import { findingPosition, toJunit, toSarif, type FindingPosition, type LintReport } from '../../lint/formats.js';
import { outputMode, palette, printJson, printTable } from '../../output/index.js';
import { oneLine } from '../../output/one-line.js';
import { count, figure } from '../../plural.js';

export type LintFormat = 'table' | 'json' | 'sarif' | 'junit';

/** Exit 10 (`checks`), the JSON document saying why: what `lint` and `sandbox email --checks` throw on findings at or above --fail-on. */
export function lintFailed(outcome: LintReport): QuietExit {
  return new QuietExit(EXIT.checks, { message: `findings at or above --fail-on ${outcome.failOn}: ${countsLine(outcome.counts)}` });
}

/** A lint report as `--format` (or the output mode) asks: a table with the fixes and a summary on stderr, JSON, SARIF or JUnit. */
export async function printLintReport(outcome: LintReport, asked: LintFormat | undefined, ctx: CommandContext): Promise<void> {
  const format = asked ?? outputMode(ctx, ctx.globals).format;
  if (format === 'sarif') return void ctx.io.out.write(toSarif(outcome));
  if (format === 'junit') return void ctx.io.out.write(toJunit(outcome));
  if (format === 'json') return printJson(ctx, outcome);
  const rows = outcome.results.flatMap((r) => r.findings.map((f) => ({ ...f, where: `${r.input}${whereIn(findingPosition(r, f), r.line)}` })));
  const order = { error: 0, warning: 1, info: 2 } as const;
  rows.sort((a, b) => order[a.severity] - order[b.severity]);
  await printTable(
    ctx,
    rows,
    [
      { header: 'SEVERITY', value: (f) => f.severity },
      { header: 'CHECK', value: (f) => f.check },
      { header: 'WHERE', value: (f) => f.where, kind: 'text' },
      { header: 'MESSAGE', value: (f) => f.message, kind: 'text' },
    ],
    `no findings in ${count(outcome.results.length, 'email')}`,
  );
  const c = await palette(ctx.io.color);
  const hints = new Map(rows.map((f) => [f.check, f.hint]));
  if (hints.size > 0) ctx.io.out.write(`\n${[...hints].map(([check, hint]) => `${c.bold(check)}: ${hint}`).join('\n')}\n`);
  const skipped = [...outcome.skipped, ...outcome.results.flatMap((r) => r.skipped.map((s) => `${r.input}: ${s}`))];
  // Template names and file names come from the input: their control characters are escaped.
  for (const s of skipped) ctx.io.err.write(`skipped: ${oneLine(s)}\n`);
  ctx.io.err.write(`${countsLine(outcome.counts)} in ${count(outcome.results.length, 'email')}: ${outcome.ok ? 'passed' : 'failed'} (--fail-on ${outcome.failOn})\n`);
}

/** The table's place after the input's name: `:3:4` in the file (nothing on the entry's own line), ` (HTML 2:4)` in its HTML. */
function whereIn(at: FindingPosition | undefined, entryLine: number | undefined): string {
  if (at === undefined || (at.in === 'file' && at.line === entryLine)) return '';
  const place = `${at.line}${at.column === undefined ? '' : `:${at.column}`}`;
  return at.in === 'file' ? `:${place}` : ` (HTML ${place})`;
}

const countsLine = ({ error, warning, info }: LintReport['counts']) => `${count(error, 'error')}, ${count(warning, 'warning')}, ${figure(info)} info`;
