import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CommandContext } from './context.js';
import { fsReason } from '../files.js';
import { usageError } from '../errors.js';
import { stdinFor } from '../input/stdin.js';
import { lintTargets } from '../lint/inputs.js';
import { lint } from '../lint/lint.js';
import type { Severity } from '../lint/rules.js';
import { lintFailed, printLintReport, type LintFormat } from './shared/lint-report.js';

export interface LintOptions {
  inputs: string[];
  file?: string;
  batch?: string;
  templates?: string;
  props?: string;
  failOn: Severity;
  format?: LintFormat;
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
  if (globals.json && opts.format !== undefined && opts.format !== 'json') throw usageError(`${ctx.jq ? '--jq' : '--json'} and --format ${opts.format} cannot be used together`);
  // Checked before any input is read; the caniemail data loads only here, only with --clients.
  const clients = opts.clients ? (await import('../lint/clients.js')).clientGlobs(opts.clients) : undefined;
  if (opts.templates !== undefined) checkTemplatesDir(opts.templates, ctx.cwd);
  const targets = await lintTargets({ operands: opts.inputs, file: opts.file, batch: opts.batch, templates: opts.templates, props: opts.props }, ctx.cwd, ctx.io, (what) => stdinFor(ctx, what));
  const outcome = await lint(targets, {
    failOn: opts.failOn,
    ...(clients ? { clients } : {}),
    ...(opts.spam || opts.spamThreshold !== undefined ? { spam: { threshold: opts.spamThreshold, env: ctx.env, signal: ctx.signal } } : {}),
    ...(opts.checkLinks ? { links: { max: opts.maxLinks, timeoutMs: opts.linkTimeout, signal: ctx.signal } } : {}),
  });
  if (!globals.quiet) await printLintReport(outcome, opts.format, ctx);
  // The findings are the result; the JSON document also says why the exit code is not 0.
  if (!outcome.ok) throw lintFailed(outcome);
}

/** A --templates that cannot be read would leave every templated entry skipped, and the run green. */
function checkTemplatesDir(dir: string, cwd: string): void {
  if (dir === '') throw usageError('--templates: the directory name is empty');
  const path = resolve(cwd, dir);
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch (err) {
    throw usageError(`--templates: cannot read ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : fsReason(err)}`);
  }
  if (!isDirectory) throw usageError(`--templates: ${path} is not a directory`);
}
