import { VERSION } from '../version.js';
import { RULES, severityRank, type Finding, type Rule, type Severity } from './rules.js';

/** The checks' outcome for one target (an input, or the batch entries sharing one body). */
export interface LintResult {
  input: string;
  file?: string;
  line?: number;
  entries?: number[];
  findings: Finding[];
  skipped: string[];
}

export interface LintReport {
  /** False when a finding is at or above failOn. */
  ok: boolean;
  failOn: Severity;
  counts: Record<Severity, number>;
  results: LintResult[];
  /** Checks that did not run at all, and why (SpamAssassin not installed, ...). */
  skipped: string[];
}

export function buildReport(results: LintResult[], failOn: Severity, skipped: string[] = []): LintReport {
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const r of results) for (const f of r.findings) counts[f.severity]++;
  const ok = !results.some((r) => r.findings.some((f) => severityRank(f.severity) >= severityRank(failOn)));
  return { ok, failOn, counts, results, skipped };
}

/**
 * Where a finding's line and column are: `file` when they are the input file's own (an HTML file
 * checked as it is, or a finding about a batch or --file entry itself, on the entry's line), `html`
 * when they are lines of an entry's or a rendered React email's HTML, which are not the file's.
 */
export type FindingPosition = { in: 'file' | 'html'; line: number; column?: number };

export function findingPosition(r: Pick<LintResult, 'file' | 'line'>, f: Pick<Finding, 'line' | 'column'>): FindingPosition | undefined {
  if (f.line === undefined) return undefined;
  const ownLines = (r.line === undefined && r.file !== undefined) || (f.line === r.line && f.column === undefined);
  return { in: ownLines ? 'file' : 'html', line: f.line, ...(f.column === undefined ? {} : { column: f.column }) };
}

/** A position in words: `line 3:4` in the file, `line 2, column 4 of its HTML` in an entry's HTML. */
export function positionWords(p: FindingPosition): string {
  if (p.in === 'file') return `line ${p.line}${p.column === undefined ? '' : `:${p.column}`}`;
  return `line ${p.line}${p.column === undefined ? '' : `, column ${p.column}`} of its HTML`;
}

const SARIF_LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { error: 'error', warning: 'warning', info: 'note' };

/** A path as a SARIF artifact URI: relative, forward slashes, each segment percent-encoded. */
const artifactUri = (path: string): string => path.split(/[\\/]/).map(encodeURIComponent).join('/');

/** SARIF 2.1.0 (one run, every rule in the driver), for GitHub code scanning and other CI annotators. */
export function toSarif(report: LintReport): string {
  const rules = allRules(report);
  const index = new Map(rules.map((r, i) => [r.id, i]));
  const results = report.results.flatMap((r) =>
    r.findings.map((f) => {
      // An entry of a batch or --file (r.line set) is one line of the file, and a rendered React email
      // (no file) is not its .tsx's lines: a finding's line and column in the HTML are not the
      // file's, so the annotation goes on the entry (or the whole file) and the message says where.
      const at = findingPosition(r, f);
      const region = r.line !== undefined ? { startLine: r.line } : at?.in === 'file' ? { startLine: at.line, ...(at.column === undefined ? {} : { startColumn: at.column }) } : undefined;
      const inHtml = at?.in === 'html' ? `at ${positionWords(at)}` : undefined;
      const named = r.file !== undefined && r.input !== r.file ? r.input : undefined;
      const where = [named, inHtml].filter((w) => w !== undefined).join(', ');
      // GitHub code scanning rejects the whole file for one result without a location: stdin and a
      // React email are named by their input.
      const location = [{ physicalLocation: { artifactLocation: { uri: artifactUri(r.file ?? r.input) }, ...(region ? { region } : {}) } }];
      return {
        ruleId: f.check,
        ruleIndex: index.get(f.check) as number,
        level: SARIF_LEVEL[f.severity],
        message: { text: `${f.message}${where ? ` (${where})` : ''}. ${f.hint}` },
        locations: location,
      };
    }),
  );
  const notifications = report.skipped.map((text) => ({ level: 'note', message: { text: `skipped: ${text}` } }));
  const sarif = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'mailroom lint',
            version: VERSION,
            rules: rules.map((r) => ({ id: r.id, shortDescription: { text: r.title }, help: { text: r.hint }, defaultConfiguration: { level: SARIF_LEVEL[r.severity] } })),
          },
        },
        invocations: [{ executionSuccessful: true, ...(notifications.length ? { toolExecutionNotifications: notifications } : {}) }],
        results,
      },
    ],
  };
  return `${JSON.stringify(sarif, null, 2)}\n`;
}

/** The catalogue, plus any rule a finding names that it lacks (client compatibility adds its own). */
function allRules(report: LintReport): Rule[] {
  const rules: Rule[] = Object.values(RULES);
  const known = new Set(rules.map((r) => r.id));
  for (const r of report.results)
    for (const f of r.findings)
      if (!known.has(f.check)) {
        known.add(f.check);
        rules.push({ id: f.check, severity: f.severity, title: f.check, hint: f.hint });
      }
  return rules;
}

// XML 1.0 allows tab, LF and CR among the controls; anything else below 0x20 (and lone surrogates) cannot appear at all.
const xml = (s: string): string =>
  s
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

/**
 * JUnit XML: a test suite per checked input, a test case per check that found something (failed
 * when a finding is at or above --fail-on) plus one "checks" case that passes when nothing did, so
 * a clean email still shows as a passing test. Skipped checks are skipped cases.
 */
export function toJunit(report: LintReport): string {
  const rank = severityRank(report.failOn);
  let tests = 0;
  let failures = 0;
  let skippedTotal = 0;
  // An entry's fields and its body are checked as two results of one name: one suite, so a CI
  // report that keys cases by class and name neither merges nor drops them.
  const byInput = new Map<string, { input: string; findings: (Finding & { at?: FindingPosition })[]; skipped: string[] }>();
  for (const r of report.results) {
    const suite = byInput.get(r.input) ?? { input: r.input, findings: [], skipped: [] };
    for (const f of r.findings) {
      const at = findingPosition(r, f);
      suite.findings.push(at ? { ...f, at } : f);
    }
    suite.skipped.push(...r.skipped);
    byInput.set(r.input, suite);
  }
  const suites = [...byInput.values()].map((r) => {
    const byCheck = new Map<string, (Finding & { at?: FindingPosition })[]>();
    for (const f of r.findings) byCheck.set(f.check, [...(byCheck.get(f.check) ?? []), f]);
    const cases: string[] = [];
    let suiteFailures = 0;
    const classname = xml(r.input);
    for (const [check, found] of byCheck) {
      const failing = found.filter((f) => severityRank(f.severity) >= rank);
      const lines = found.map((f) => `${f.severity}${f.at ? ` at ${positionWords(f.at)}` : ''}: ${f.message}`).join('\n');
      const hint = found[0]?.hint ?? '';
      if (failing.length > 0) {
        suiteFailures++;
        cases.push(`    <testcase classname="${classname}" name="${xml(check)}">\n      <failure message="${xml(failing[0]?.message ?? '')}" type="${failing[0]?.severity}">${xml(`${lines}\nfix: ${hint}`)}</failure>\n    </testcase>`);
      } else cases.push(`    <testcase classname="${classname}" name="${xml(check)}">\n      <system-out>${xml(`${lines}\nfix: ${hint}`)}</system-out>\n    </testcase>`);
    }
    if (byCheck.size === 0) cases.push(`    <testcase classname="${classname}" name="checks"/>`);
    for (const why of r.skipped) cases.push(`    <testcase classname="${classname}" name="skipped">\n      <skipped message="${xml(why)}"/>\n    </testcase>`);
    tests += cases.length;
    failures += suiteFailures;
    skippedTotal += r.skipped.length;
    return `  <testsuite name="${classname}" tests="${cases.length}" failures="${suiteFailures}" errors="0" skipped="${r.skipped.length}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  const notes = report.skipped.map((why) => `  <testsuite name="skipped checks" tests="1" failures="0" errors="0" skipped="1">\n    <testcase classname="mailroom lint" name="skipped">\n      <skipped message="${xml(why)}"/>\n    </testcase>\n  </testsuite>`);
  tests += notes.length;
  skippedTotal += notes.length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="mailroom lint" tests="${tests}" failures="${failures}" errors="0" skipped="${skippedTotal}">\n${[...suites, ...notes].join('\n')}\n</testsuites>\n`;
}
