import { checkEmail } from './checks.js';
import { fetchLinks, type LinkStatus } from './fetch-links.js';
import { buildReport, type LintReport, type LintResult } from './formats.js';
import { ranges, type LintTarget } from './inputs.js';
import type * as SpamModule from './spam.js';
import type { SpamScorer } from './spam.js';
import { finding, type Finding, type Severity } from './rules.js';

export interface LinkCheckOptions {
  /** At most this many distinct URLs are fetched; the rest are listed as not checked. */
  max: number;
  timeoutMs: number;
  concurrency?: number;
  signal: AbortSignal;
}

export interface LintRunOptions {
  failOn: Severity;
  /** Fetch every absolute http(s) link and image (--check-links). */
  links?: LinkCheckOptions;
  /** Client globs (`gmail.*`, from clientGlobs) to check the HTML and CSS against the caniemail data. */
  clients?: string[];
  /** Score each body with the local SpamAssassin (--spam). */
  spam?: { threshold?: number; env: Record<string, string | undefined>; signal: AbortSignal };
  /** Checks skipped for the whole run, and why. */
  skipped?: string[];
}

/** An image heavier than this is worth a warning: every reader on a phone downloads it. */
const IMAGE_BYTES = 1024 * 1024;

export type LintOutcome = LintReport & { links?: LinkStatus[] };

/**
 * Runs the checks on each target as it comes (its body is not kept after); with `links`, then
 * fetches the absolute URLs they hold, once each.
 */
export async function lint(targets: AsyncIterable<LintTarget> | Iterable<LintTarget>, opts: LintRunOptions): Promise<LintOutcome> {
  // Loaded only when asked: the caniemail data is most of a megabyte.
  const compat = opts.clients ? await import('./clients.js') : undefined;
  const skipped = [...(opts.skipped ?? [])];
  let spam: { scorer: SpamScorer; spam: typeof SpamModule } | undefined;
  if (opts.spam) {
    const mod = await import('./spam.js');
    const scorer = await mod.findSpamAssassin(opts.spam.env, opts.spam.signal);
    if (scorer) spam = { scorer, spam: mod };
    else skipped.push('spam: SpamAssassin is not installed (spamc with a running spamd, or spamassassin): apt-get install spamassassin');
  }
  const uses = new Map<string, Array<{ result: LintResult; line: number; column: number; what: string }>>();
  const results: LintResult[] = [];
  const batches = new Map<LintResult, string>();
  for await (const t of targets) {
    // `entries` is the target's own list: entries with the same body read later are added to it.
    const result: LintResult = { input: t.input, ...(t.file === undefined ? {} : { file: t.file }), ...(t.line === undefined ? {} : { line: t.line }), ...(t.entries ? { entries: t.entries } : {}), findings: [...t.findings], skipped: [...t.skipped] };
    results.push(result);
    if (t.batch !== undefined) batches.set(result, t.batch);
    if (!t.email) continue;
    const { findings, facts } = checkEmail(t.email);
    result.findings.push(...findings);
    if (compat && opts.clients) result.findings.push(...compat.clientFindings(t.email.html, opts.clients));
    if (spam && opts.spam) {
      try {
        result.findings.push(...spam.spam.spamFindings(await spam.scorer.score(spam.spam.toMimeMessage(t.email)), opts.spam.threshold));
      } catch (err) {
        result.skipped.push(`spam: ${(err as Error).message}`);
      }
    }
    const note = (url: string | undefined, line: number, column: number, what: string) => {
      if (url === undefined || !/^https?:\/\/[^/]/i.test(url.trim())) return;
      const key = url.trim();
      uses.set(key, [...(uses.get(key) ?? []), { result, line, column, what }]);
    };
    if (!opts.links) continue;
    for (const l of facts.links) note(l.href, l.line, l.column, 'link');
    for (const i of facts.images) note(i.src, i.line, i.column, 'image');
  }
  for (const [result, batch] of batches) if (result.entries && result.entries.length > 1) result.input = `${batch} entries ${ranges(result.entries)}`;
  let links: LinkStatus[] | undefined;
  if (opts.links) {
    const all = [...uses.keys()];
    const picked = all.slice(0, opts.links.max);
    if (all.length > picked.length) skipped.push(`link check: ${all.length - picked.length} of ${all.length} URLs not fetched (--max-links ${opts.links.max})`);
    links = await fetchLinks(picked, { timeoutMs: opts.links.timeoutMs, concurrency: opts.links.concurrency ?? 8, signal: opts.links.signal });
    const broken = new Map<LintResult, Array<Finding>>();
    for (const s of links) {
      if (s.bytes !== undefined && s.bytes > IMAGE_BYTES) {
        for (const use of uses.get(s.url) ?? []) {
          if (use.what === 'image') broken.set(use.result, [...(broken.get(use.result) ?? []), finding('size-image', `image ${s.url} is ${(s.bytes / 1024 / 1024).toFixed(1)} MB`, use)]);
        }
      }
      if (s.error === undefined && s.status !== undefined && s.status < 400) continue;
      const why = s.status !== undefined && s.error === undefined ? `answered ${s.status}` : s.status !== undefined ? `answered ${s.status}: ${s.error}` : (s.error ?? 'failed');
      for (const use of uses.get(s.url) ?? []) broken.set(use.result, [...(broken.get(use.result) ?? []), finding('link-broken', `${use.what} ${s.url} ${why} (${s.method})`, use)]);
    }
    for (const [result, found] of broken) result.findings.push(...found.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0)));
  }
  const report = buildReport(results, opts.failOn, skipped);
  return links ? { ...report, links } : report;
}
