import type { CommandContext } from '../client.js';
import { QuietExit, usageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { stdinFor } from '../input/stdin.js';
import { lintTargets } from '../lint/inputs.js';
import { lint, type LintOutcome } from '../lint/lint.js';
import { toJunit, toSarif } from '../lint/formats.js';
import type { Severity } from '../lint/rules.js';
import { outputMode, palette, printJson, printTable } from '../output/index.js';

export interface LintOptions {
  inputs: string[];
  file?: string;
  batch?: string;
  templates?: string;
  props?: string;
  failOn: Severity;
  format?: 'table' | 'json' | 'sarif' | 'junit';
  checkLinks?: boolean;
  maxLinks: number;
  linkTimeout: number;
  clients?: string[];
  spam?: boolean;
  spamThreshold?: number;
}

/** Reads the inputs, runs the checks, prints them in the format asked, and exits 10 on a finding at or above --fail-on. */
export async function run(opts: LintOptions, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  if (globals.json && opts.format !== undefined && opts.format !== 'json') throw usageError(`--json and --format ${opts.format} cannot be used together`);
  // Checked before any input is read; the caniemail data loads only here, only with --clients.
  const clients = opts.clients ? (await import('../lint/clients.js')).clientGlobs(opts.clients) : undefined;
  const targets = await lintTargets({ operands: opts.inputs, file: opts.file, batch: opts.batch, templates: opts.templates, props: opts.props }, ctx.cwd, ctx.io, (what) => stdinFor(ctx, what));
  const outcome = await lint(targets, {
    failOn: opts.failOn,
    ...(clients ? { clients } : {}),
    ...(opts.spam || opts.spamThreshold !== undefined ? { spam: { threshold: opts.spamThreshold, env: ctx.env, signal: ctx.signal } } : {}),
    ...(opts.checkLinks ? { links: { max: opts.maxLinks, timeoutMs: opts.linkTimeout, signal: ctx.signal } } : {}),
  });
  if (!globals.quiet) await print(outcome, opts, ctx);
  // The findings are the result; the JSON document also says why the exit code is not 0.
  if (!outcome.ok) throw new QuietExit(EXIT.checks, { message: `findings at or above --fail-on ${outcome.failOn}: ${countsLine(outcome.counts)}` });
}

async function print(outcome: LintOutcome, opts: LintOptions, ctx: CommandContext): Promise<void> {
  const format = opts.format ?? outputMode(ctx, ctx.globals).format;
  if (format === 'sarif') return void ctx.io.out.write(toSarif(outcome));
  if (format === 'junit') return void ctx.io.out.write(toJunit(outcome));
  if (format === 'json') return printJson(ctx, outcome);
  const rows = outcome.results.flatMap((r) => r.findings.map((f) => ({ ...f, where: `${r.input}${f.line === undefined || f.line === r.line ? '' : `:${f.line}${f.column === undefined ? '' : `:${f.column}`}`}` })));
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
    `no findings in ${outcome.results.length} ${outcome.results.length === 1 ? 'email' : 'emails'}`,
  );
  const c = await palette(ctx.io.color);
  const hints = new Map(rows.map((f) => [f.check, f.hint]));
  if (hints.size > 0) ctx.io.out.write(`\n${[...hints].map(([check, hint]) => `${c.bold(check)}: ${hint}`).join('\n')}\n`);
  const skipped = [...outcome.skipped, ...outcome.results.flatMap((r) => r.skipped.map((s) => `${r.input}: ${s}`))];
  for (const s of skipped) ctx.io.err.write(`skipped: ${s}\n`);
  ctx.io.err.write(`${countsLine(outcome.counts)} in ${plural(outcome.results.length, 'email')}: ${outcome.ok ? 'passed' : 'failed'} (--fail-on ${outcome.failOn})\n`);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const countsLine = ({ error, warning, info }: LintOutcome['counts']) => `${plural(error, 'error')}, ${plural(warning, 'warning')}, ${info} info`;
