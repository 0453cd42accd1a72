import { mkdtempSync, rmSync, writeFileSync, mkdirSync, copyFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Parser } from 'htmlparser2';
import { runInProcess } from '../helpers/context.js';

const fixtures = fileURLToPath(new URL('../fixtures/lint/', import.meta.url));
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mailroom-lint-'));
  for (const f of ['clean.html', 'clean.txt', 'broken.html', 'broken.txt']) copyFileSync(join(fixtures, f), join(dir, f));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lint = (args: string[], opts: Parameters<typeof runInProcess>[1] = {}) => runInProcess(['lint', ...args], { cwd: dir, ...opts });
interface Report {
  ok: boolean;
  failOn: string;
  counts: Record<string, number>;
  results: Array<{ input: string; file?: string; line?: number; entries?: number[]; findings: Array<{ check: string; severity: string; message: string; hint: string; line?: number }>; skipped: string[] }>;
  skipped: string[];
  links?: Array<{ url: string; status?: number; error?: string; method: string }>;
  error?: unknown;
}
const json = (stdout: string) => JSON.parse(stdout) as Report;

describe('mailroom lint: exit codes and --fail-on', () => {
  it('the clean email: exit 0, one result with no findings, nothing on stderr', async () => {
    const r = await lint(['clean.html', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(json(r.stdout)).toEqual({ ok: true, failOn: 'error', counts: { error: 0, warning: 0, info: 0 }, results: [{ input: 'clean.html', file: 'clean.html', findings: [], skipped: [] }], skipped: [] });
  });

  it('an error: exit 10 (the email, not the command line), the report still printed whole', async () => {
    const r = await lint(['clean.html', 'broken.html', '--json']);
    expect(r.code).toBe(10);
    const report = json(r.stdout);
    expect(report.ok).toBe(false);
    expect(report.counts).toEqual({ error: 4, warning: 9, info: 1 });
    expect(report.results.map((x) => x.input)).toEqual(['clean.html', 'broken.html']);
    // Like every command's JSON, the document carries the error that set the exit code.
    expect(report.error).toEqual({ kind: 'checks', message: 'findings at or above --fail-on error: 4 errors, 9 warnings, 1 info', exitCode: 10 });
  });

  it('--fail-on: warnings pass by default, fail with --fail-on warning; info fails only --fail-on info', async () => {
    writeFileSync(join(dir, 'warn.html'), '<title>t</title><div style="display:none">pre</div><p>Hello there, <a href="http://e.com">http</a></p>');
    expect((await lint(['warn.html', '-q'])).code).toBe(0);
    expect((await lint(['warn.html', '-q', '--fail-on', 'warning'])).code).toBe(10);
    expect((await lint(['warn.html', '-q', '--fail-on', 'WARNING'])).code).toBe(10);
    expect((await lint(['clean.html', '-q', '--fail-on', 'info'])).code).toBe(0);
    writeFileSync(join(dir, 'info.html'), '<title>t</title><p>Hello there</p>');
    expect((await lint(['info.html', '-q', '--fail-on', 'warning'])).code).toBe(0);
    expect((await lint(['info.html', '-q', '--fail-on', 'info'])).code).toBe(10);
  });

  it('-q prints nothing, only the exit code says', async () => {
    expect(await lint(['broken.html', '-q'])).toEqual({ code: 10, stdout: '', stderr: '' });
  });

  it('bad input is exit 2 with one line: a missing file, a bad --fail-on, --json with --format sarif, a terminal stdin', async () => {
    const missing = await lint(['nope.html']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('mailroom: lint: cannot read nope.html: no such file\n');
    mkdirSync(join(dir, 'folder'), { recursive: true });
    expect((await lint(['folder'])).stderr).toBe('mailroom: lint: cannot read folder: is a directory\n');
    writeFileSync(join(dir, 'latin1.html'), Buffer.from([0xe9, 0x3c, 0x70, 0x3e]));
    expect((await lint(['latin1.html'])).stderr).toBe('mailroom: lint latin1.html: not UTF-8 text: invalid byte 0xe9 at byte offset 0\n');
    // An unset shell variable ("$EMAIL") is an empty name, never the current directory.
    for (const [args, flag] of [[[''], 'lint'], [['--file', ''], '--file'], [['--batch', ''], '--batch']] as const) {
      expect(await lint([...args]), flag).toEqual({ code: 2, stdout: '', stderr: `mailroom: ${flag}: the file name is empty\n` });
    }
    expect(await lint(['--batch', 'any.ndjson', '--templates', ''])).toEqual({ code: 2, stdout: '', stderr: 'mailroom: --templates: the directory name is empty\n' });
    const bad = await lint(['clean.html', '--fail-on', 'fatal']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--fail-on must be one of error, warning, info');
    expect((await lint(['clean.html', '--json', '--format', 'sarif'])).code).toBe(2);
    // The flag the user gave is the one named: --jq implies --json, but nobody typed --json.
    expect(await lint(['clean.html', '--format', 'junit', '--jq', '.'])).toEqual({ code: 2, stdout: '', stderr: 'mailroom: --jq and --format junit cannot be used together\n' });
    const tty = await lint([], { tty: true });
    expect(tty.code).toBe(2);
    expect(tty.stderr.split('\n')[0]).toBe('mailroom: no input: give HTML files, --file or --batch, or pipe HTML into stdin');
  });
});

describe('mailroom lint: inputs', () => {
  it('stdin: piped HTML with no operand, or "-"', async () => {
    const html = '<title>t</title><p>{{name}}</p>';
    for (const args of [[], ['-']]) {
      const r = await lint([...args, '--json'], { input: html });
      expect(r.code).toBe(10);
      expect(json(r.stdout).results[0]).toMatchObject({ input: 'stdin', findings: expect.arrayContaining([expect.objectContaining({ check: 'placeholder-unresolved', line: 1, column: 20 })]) });
      expect(json(r.stdout).results[0]?.file).toBeUndefined();
    }
  });

  // In CI, stdin is no terminal: `mailroom lint $(find emails -name '*.html')` that finds nothing
  // reads an empty stdin, and an empty "email" with no error-level finding passed the gate.
  it('empty HTML (stdin with nothing piped, a zero-byte or blank file) is exit 2, never a pass', async () => {
    expect(await lint([], { input: '' })).toEqual({ code: 2, stdout: '', stderr: 'mailroom: lint: stdin is empty: no HTML to check\n  name the files to check (mailroom lint emails/*.html), or pipe HTML in\n' });
    expect((await lint(['-', '--format', 'sarif'], { input: ' \n' })).code).toBe(2);
    writeFileSync(join(dir, 'empty.html'), '');
    expect(await lint(['clean.html', 'empty.html', '--json'])).toEqual({ code: 2, stdout: '{"error":{"kind":"usage","message":"lint: empty.html is empty: no HTML to check","exitCode":2}}\n', stderr: 'mailroom: lint: empty.html is empty: no HTML to check\n' });
  });

  it('a React email file is rendered as send --react renders it (HTML and text), with --props', async () => {
    const r = await lint(['Receipt.tsx', '--props', '{"name":"{{name}}"}', '--json'], { cwd: fixtures });
    expect(r.code).toBe(10);
    const [result] = json(r.stdout).results;
    expect(result?.input).toBe('Receipt.tsx');
    expect(result?.findings.map((f) => `${f.check}: ${f.message}`)).toEqual([
      'image-no-alt: image https://cdn.example.com/logo.png has no alt attribute',
      'placeholder-unresolved: the HTML holds {{name}} unresolved',
      'placeholder-unresolved: the text part holds {{name}} unresolved',
    ]);
    expect((await lint(['Receipt.tsx', '--json'], { cwd: fixtures })).code).toBe(0);
    const noReact = await lint(['clean.html', '--props', '{}']);
    expect(noReact.code).toBe(2);
    expect(noReact.stderr).toBe('mailroom: --props needs a React email file (.tsx or .jsx) to render\n');
  });

  it('a .txt beside the .html is its plain-text part', async () => {
    const report = json((await lint(['broken.html', '--json'])).stdout);
    expect(report.results[0]?.findings.map((f) => f.check)).toContain('text-mismatch');
    writeFileSync(join(dir, 'alone.html'), '<title>t</title><p>Hello there</p>');
    expect(json((await lint(['alone.html', '--json'])).stdout).results[0]?.findings.map((f) => f.check)).toContain('text-missing');
  });

  it('--file: one email object; a placeholder left in sendAt or to is found, on the object\'s line', async () => {
    writeFileSync(join(dir, 'email.json'), JSON.stringify({ from: 'a@example.com', to: '{{email}}', subject: 'Hi {{name}}', html: '<title>t</title><p>Hi</p>', text: 'Hi', sendAt: '{{sendAt}}' }));
    const r = await lint(['--file', 'email.json', '--json']);
    expect(r.code).toBe(10);
    const messages = json(r.stdout).results[0]?.findings.filter((f) => f.check === 'placeholder-unresolved').map((f) => f.message);
    expect(messages).toEqual(['to holds {{email}} unresolved', 'sendAt holds {{sendAt}} unresolved', 'the subject holds {{name}} unresolved']);
  });

  it('--batch: each distinct body checked once, the entries sharing it named; per-entry fields per entry', async () => {
    const body = '<title>t</title><div style="display:none">p</div><p>Hello <a href="http://e.com">there</a></p>';
    const lines = [
      { from: 'a@example.com', to: 'a@example.com', subject: 'Hi', html: body, text: 'Hello there' },
      { from: 'a@example.com', to: 'b@example.com', subject: 'Hi', html: body, text: 'Hello there' },
      { from: 'a@example.com', to: '{{email}}', subject: 'Hi', html: body, text: 'Hello there' },
      { from: 'a@example.com', to: 'c@example.com', subject: 'Other', html: '<p>{{x}}</p>' },
      'not an object',
      { template: 'welcome', to: 'd@example.com', variables: { name: 'Ada' } },
    ];
    writeFileSync(join(dir, 'batch.ndjson'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const r = await lint(['--batch', 'batch.ndjson', '--json']);
    expect(r.code).toBe(10);
    const results = json(r.stdout).results;
    // Numbered from 0, as batch numbers its entries (its errors, --report, idempotency keys).
    expect(results.map((x) => [x.input, x.entries, x.findings.map((f) => f.check)])).toEqual([
      ['batch.ndjson entries 0-2', [0, 1, 2], ['link-http']],
      // batch refuses "{{email}}" as an address: so does lint, beside the placeholder finding.
      ['batch.ndjson entry 2', [2], ['entry-invalid', 'placeholder-unresolved']],
      ['batch.ndjson entry 3', [3], ['text-missing', 'head-no-title', 'head-no-preheader', 'placeholder-unresolved']],
      ['batch.ndjson entry 4', [4], ['entry-invalid']],
      ['batch.ndjson entry 5', [5], []],
    ]);
    expect(results[1]?.line).toBe(3);
    expect(results[4]?.skipped).toEqual(['template "welcome" is stored with the service: give --templates <dir> with its source as <name>.html to check it']);
  });

  it('text from the input shown on stderr has its control characters escaped (a template name with ESC)', async () => {
    writeFileSync(join(dir, 'esc.ndjson'), `${JSON.stringify({ template: 'we\u001b[2Jlcome', to: 'a@example.com' })}\n`);
    const r = await lint(['--batch', 'esc.ndjson'], { tty: true, color: false });
    // batch refuses the control character in the name: an entry-invalid error, shown escaped too.
    expect(r.code).toBe(10);
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stderr).not.toContain('\u001b');
    expect(r.stderr).toContain('skipped: esc.ndjson entry 0: template "we\\u001b[2Jlcome" is stored with the service');
  });

  it('--templates that is missing, a file or empty (a typo): exit 2 before any input is read, not every template skipped and exit 0', async () => {
    writeFileSync(join(dir, 'one-templated.ndjson'), `${JSON.stringify({ template: 'welcome', to: 'a@example.com' })}\n`);
    writeFileSync(join(dir, 'not-a-dir.html'), '<p>x</p>');
    for (const [templates, line] of [
      ['templtes', `mailroom: --templates: cannot read ${join(dir, 'templtes')}: no such directory`],
      ['not-a-dir.html', `mailroom: --templates: ${join(dir, 'not-a-dir.html')} is not a directory`],
      ['', 'mailroom: --templates: the directory name is empty'],
    ] as const) {
      const r = await lint(['--batch', 'one-templated.ndjson', '--templates', templates]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`${line}\n`);
    }
  });

  it('--templates: a templated entry is checked with its variables filled; a variable it lacks is found', async () => {
    mkdirSync(join(dir, 'templates'), { recursive: true });
    writeFileSync(join(dir, 'templates', 'welcome.html'), '<title>Welcome</title><div style="display:none">Hi</div><p>Hello {{name}}, your plan is {{plan}}.</p>');
    writeFileSync(join(dir, 'templated.ndjson'), [{ template: 'welcome', to: 'a@example.com', variables: { name: 'Ada', plan: 'pro' } }, { template: 'welcome', to: 'b@example.com', variables: { name: 'Bob' } }].map((l) => JSON.stringify(l)).join('\n'));
    const r = await lint(['--batch', 'templated.ndjson', '--templates', 'templates', '--json']);
    expect(r.code).toBe(10);
    const results = json(r.stdout).results;
    expect(results.map((x) => [x.input, x.findings.map((f) => `${f.check}: ${f.message}`)])).toEqual([
      ['templated.ndjson entry 0', ['text-missing: no plain-text part: the service will generate one from the HTML']],
      ['templated.ndjson entry 1', ['template-variable-missing: template "welcome" uses {{plan}}, which the entry\'s variables do not give']],
      ['templated.ndjson entry 1', ['text-missing: no plain-text part: the service will generate one from the HTML']],
    ]);
  });
});

describe('mailroom lint: output formats', () => {
  it('a terminal gets a table, the fixes, and a summary on stderr', async () => {
    const r = await lint(['broken.html'], { tty: true, columns: 200, color: false });
    expect(r.code).toBe(10);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^SEVERITY +CHECK +WHERE +MESSAGE$/);
    expect(lines[1]).toMatch(/^error +link-unsafe-scheme +broken\.html:5:1 +javascript: link \("Click"\)$/);
    expect(r.stdout).toContain('\nlink-unsafe-scheme: email clients strip or block these links');
    expect(r.stderr).toBe('4 errors, 9 warnings, 1 info in 1 email: failed (--fail-on error)\n');
    const clean = await lint(['clean.html'], { tty: true, color: false });
    expect(clean).toEqual({ code: 0, stdout: 'no findings in 1 email\n', stderr: '0 errors, 0 warnings, 0 info in 1 email: passed (--fail-on error)\n' });
  });

  it('--format sarif: SARIF 2.1.0, one run, every rule in the driver, results pointing at file, line and column', async () => {
    const r = await lint(['broken.html', 'clean.html', '--format', 'sarif']);
    expect(r.code).toBe(10);
    const sarif = JSON.parse(r.stdout) as { version: string; $schema: string; runs: Array<{ tool: { driver: { name: string; version: string; rules: Array<{ id: string; shortDescription: { text: string }; defaultConfiguration: { level: string } }> } }; results: Array<{ ruleId: string; ruleIndex: number; level: string; message: { text: string }; locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number; startColumn?: number } } }> }> }> };
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.$schema).toBe('https://json.schemastore.org/sarif-2.1.0.json');
    expect(sarif.runs).toHaveLength(1);
    const run = sarif.runs[0]!;
    expect(run.tool.driver.name).toBe('mailroom lint');
    for (const rule of run.tool.driver.rules) expect(['error', 'warning', 'note']).toContain(rule.defaultConfiguration.level);
    expect(run.results).toHaveLength(14);
    for (const res of run.results) {
      expect(run.tool.driver.rules[res.ruleIndex]?.id).toBe(res.ruleId);
      expect(['error', 'warning', 'note']).toContain(res.level);
      expect(res.locations[0]?.physicalLocation.artifactLocation.uri).toBe('broken.html');
    }
    expect(run.results.find((x) => x.ruleId === 'link-unsafe-scheme')).toMatchObject({ level: 'error', locations: [{ physicalLocation: { region: { startLine: 5, startColumn: 1 } } }] });
    expect(run.results.find((x) => x.ruleId === 'head-no-preheader')?.level).toBe('note');
  });

  it('--format sarif on a batch or --file: a finding in an entry\'s HTML points at the entry\'s line in the file, not at its line in the HTML', async () => {
    // Line 2 of the file is a clean entry; the placeholder is on line 2 of entry 2's HTML, which is line 3 of the file.
    const clean = { from: 'ops@example.com', to: 'a@example.com', subject: 'Hi', html: '<title>Hi</title><p>ok</p>' };
    writeFileSync(join(dir, 'placed.ndjson'), [clean, { ...clean, to: 'b@example.com' }, { ...clean, to: 'c@example.com', html: '<title>Hi</title>\n<p>{{name}}</p>' }].map((e) => JSON.stringify(e)).join('\n'));
    writeFileSync(join(dir, 'placed.json'), JSON.stringify({ ...clean, html: '<title>Hi</title>\n\n<p>{{name}}</p>' }, null, 2));
    type Sarif = { runs: Array<{ results: Array<{ ruleId: string; message: { text: string }; locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number; startColumn?: number } } }> }> }> };
    const placeholder = (stdout: string) => (JSON.parse(stdout) as Sarif).runs[0]!.results.find((x) => x.ruleId === 'placeholder-unresolved')!;
    const batch = await lint(['--batch', 'placed.ndjson', '--format', 'sarif']);
    expect(batch.code).toBe(10);
    const inBatch = placeholder(batch.stdout);
    expect(inBatch.locations).toEqual([{ physicalLocation: { artifactLocation: { uri: 'placed.ndjson' }, region: { startLine: 3 } } }]);
    expect(inBatch.message.text).toContain('(placed.ndjson entry 2, at line 2, column 4 of its HTML)');
    const file = await lint(['--file', 'placed.json', '--format', 'sarif']);
    expect(file.code).toBe(10);
    expect(placeholder(file.stdout).locations).toEqual([{ physicalLocation: { artifactLocation: { uri: 'placed.json' }, region: { startLine: 1 } } }]);
    expect(placeholder(file.stdout).message.text).toContain('(at line 3, column 4 of its HTML)');
  });

  it('--format junit and the table: a finding in an entry\'s or a React email\'s HTML is placed in its HTML, not at a line of the file; an HTML file\'s own lines stay the file\'s', async () => {
    const clean = { from: 'ops@example.com', to: 'a@example.com', subject: 'Hi', html: '<title>Hi</title><p>ok</p>' };
    writeFileSync(join(dir, 'placed.ndjson'), [clean, { ...clean, to: 'b@example.com' }, { ...clean, to: 'c@example.com', html: '<title>Hi</title>\n<p>{{name}}</p>' }].map((e) => JSON.stringify(e)).join('\n'));
    writeFileSync(join(dir, 'placed.html'), '<title>Hi</title>\n<p>{{name}}</p>\n');
    const junit = await lint(['--batch', 'placed.ndjson', 'placed.html', '--format', 'junit']);
    expect(junit.code).toBe(10);
    expect(junit.stdout).toContain('error at line 2, column 4 of its HTML: the HTML holds {{name}}');
    expect(junit.stdout).toContain('error at line 2:4: the HTML holds {{name}}');
    const table = await lint(['--batch', 'placed.ndjson', 'placed.html', '--format', 'table']);
    expect(table.code).toBe(10);
    const whereOf = (input: string) => table.stdout.split('\n').find((l) => l.includes('placeholder-unresolved') && l.includes(input));
    expect(whereOf('placed.ndjson entry 2')).toContain('placed.ndjson entry 2 (HTML 2:4)');
    expect(whereOf('placed.html')).toContain('placed.html:2:4');
    const react = await lint(['Receipt.tsx', '--props', '{"name":"{{name}}"}', '--format', 'junit'], { cwd: fixtures });
    expect(react.code).toBe(10);
    expect(react.stdout).toMatch(/error at line \d+, column \d+ of its HTML: the HTML holds \{\{name\}\}/);
  });

  it('--format sarif: every result has a location, or GitHub code scanning rejects the whole file (stdin, a React email)', async () => {
    type Sarif = { runs: Array<{ results: Array<{ ruleId: string; message: { text: string }; locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region?: unknown } }> }> }> };
    const stdin = await lint(['-', '--format', 'sarif'], { input: '<p>Hello {{name}}</p>' });
    expect(stdin.code).toBe(10);
    const results = (JSON.parse(stdin.stdout) as Sarif).runs[0]!.results;
    expect(results.length).toBeGreaterThan(0);
    for (const r of results) expect(r.locations).toEqual([{ physicalLocation: { artifactLocation: { uri: 'stdin' } } }]);
    // A rendered React email's lines are not the .tsx file's: the file, no line, the place in its HTML in the message.
    const react = await lint(['Receipt.tsx', '--props', '{"name":"{{name}}"}', '--format', 'sarif'], { cwd: fixtures });
    expect(react.code).toBe(10);
    const inHtml = (JSON.parse(react.stdout) as Sarif).runs[0]!.results.find((x) => x.message.text.startsWith('the HTML holds {{name}}'))!;
    expect(inHtml.locations).toEqual([{ physicalLocation: { artifactLocation: { uri: 'Receipt.tsx' } } }]);
    expect(inHtml.message.text).toMatch(/\(at line \d+, column \d+ of its HTML\)/);
  });

  it('--format junit: well-formed XML, a suite per input, failures only at or above --fail-on', async () => {
    const r = await lint(['broken.html', 'clean.html', '--format', 'junit']);
    expect(r.code).toBe(10);
    expect(r.stdout.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')).toBe(true);
    const suites: Array<{ attrs: Record<string, string>; cases: Array<{ attrs: Record<string, string>; failure?: Record<string, string> }> }> = [];
    let root: Record<string, string> | undefined;
    const open: string[] = [];
    const parser = new Parser(
      {
        onopentag(name, attrs) {
          open.push(name);
          if (name === 'testsuites') root = attrs;
          if (name === 'testsuite') suites.push({ attrs, cases: [] });
          if (name === 'testcase') suites.at(-1)?.cases.push({ attrs });
          if (name === 'failure') {
            const c = suites.at(-1)?.cases.at(-1);
            if (c) c.failure = attrs;
          }
        },
        onclosetag(name) {
          expect(open.pop()).toBe(name);
        },
      },
      { xmlMode: true },
    );
    parser.end(r.stdout);
    expect(open).toEqual([]);
    expect(root).toMatchObject({ name: 'mailroom lint', failures: '4', errors: '0' });
    expect(suites.map((s) => [s.attrs.name, s.attrs.failures])).toEqual([
      ['broken.html', '4'],
      ['clean.html', '0'],
    ]);
    expect(suites[0]?.cases.filter((c) => c.failure).map((c) => c.attrs.name)).toEqual(['link-unsafe-scheme', 'link-relative', 'image-relative', 'placeholder-unresolved']);
    expect(suites[1]?.cases.map((c) => c.attrs.name)).toEqual(['checks']);
    const warn = await lint(['broken.html', '--format', 'junit', '--fail-on', 'warning']);
    expect(warn.stdout).toMatch(/<testsuite name="broken.html" tests="\d+" failures="12"/); // 13 findings of 12 checks: a test case per check
  });

  it('--format junit: one suite per input, even when an entry has findings in its fields and in its body (no two suites or cases of one name)', async () => {
    writeFileSync(join(dir, 'one-entry.ndjson'), `${JSON.stringify({ from: 'ops@example.com', to: '{{x}}', subject: 'Hi', html: '<p>{{y}}</p>' })}\n`);
    const r = await lint(['--batch', 'one-entry.ndjson', '--format', 'junit']);
    expect(r.code).toBe(10);
    const suites = [...r.stdout.matchAll(/<testsuite name="([^"]*)"/g)].map((m) => m[1]);
    expect(suites).toEqual(['one-entry.ndjson entry 0']);
    const cases = [...r.stdout.matchAll(/<testcase classname="[^"]*" name="([^"]*)"/g)].map((m) => m[1]);
    expect(cases.filter((c) => c === 'placeholder-unresolved')).toHaveLength(1);
    // Both placeholders are in that one case: the one in `to` and the one in the HTML.
    expect(r.stdout).toContain('to holds {{x}} unresolved');
    expect(r.stdout).toContain('the HTML holds {{y}} unresolved');
    expect(r.stdout).toMatch(/<testsuites name="mailroom lint" tests="(\d+)" failures="2" /);
  });

  it('XML and SARIF carry hostile text safely: quotes, ampersands and control characters from the email', async () => {
    writeFileSync(join(dir, 'hostile.html'), '<title>t</title><p>x</p><a href="http://e.com/?a=1&amp;b=&quot;2&quot;">\u0001"<&></a>');
    const r = await lint(['hostile.html', '--format', 'junit', '--fail-on', 'warning']);
    expect(r.stdout).not.toContain('\u0001');
    expect(r.stdout).toContain('&quot;2&quot;');
    expect(JSON.parse((await lint(['hostile.html', '--format', 'sarif'])).stdout)).toBeTruthy();
  });
});

describe('mailroom lint --clients (the caniemail data)', () => {
  const compat = async (clients: string) => json((await lint(['compat.html', '--clients', clients, '--json'], { cwd: fixtures })).stdout).results[0]?.findings.filter((f) => f.check.startsWith('client-'));

  it('a feature a named client lacks is a warning, at its line, naming the clients; a family names all its platforms', async () => {
    const found = await compat('outlook');
    const grid = found?.find((f) => f.message.startsWith('display:grid '));
    expect(grid).toMatchObject({ check: 'client-unsupported', severity: 'warning', line: 6, message: 'display:grid is not supported by outlook.windows, outlook.windows-mail, outlook.ios, outlook.android' });
    expect(found?.find((f) => f.message.startsWith('<video> element '))).toMatchObject({ check: 'client-unsupported', line: 7 });
  });

  it('only the clients asked for: one platform, or several families', async () => {
    const one = await compat('outlook.windows');
    expect(one?.find((f) => f.message.startsWith('display:grid '))?.message).toBe('display:grid is not supported by outlook.windows');
    const both = await compat('gmail,outlook.macos');
    for (const f of both ?? []) expect(f.message).not.toMatch(/outlook\.(windows|ios|android)/);
    expect(both?.find((f) => f.message.startsWith('display:grid '))?.message).toMatch(/^display:grid is not supported by gmail\./);
  });

  it('warnings fail only --fail-on warning; an unknown client is exit 2 with a guess and the known names, before any input is read', async () => {
    expect((await lint(['compat.html', '--clients', 'outlook', '-q'], { cwd: fixtures })).code).toBe(0);
    expect((await lint(['compat.html', '--clients', 'outlook', '-q', '--fail-on', 'warning'], { cwd: fixtures })).code).toBe(10);
    const bad = await lint(['missing.html', '--clients', 'gmial']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toBe('mailroom: --clients: unknown email client "gmial" (did you mean gmail?)');
    expect(bad.stderr).toContain('known: apple-mail, gmail, orange, outlook, yahoo,');
  });

  it('an empty --clients (\'\' or \',\') is exit 2 naming the option, not an unexpected error', async () => {
    for (const empty of ['', ',', ' , ']) {
      const r = await lint(['compat.html', '--clients', empty], { cwd: fixtures });
      expect(r.code).toBe(2);
      expect(r.stderr.split('\n')[0]).toBe('mailroom: --clients: name at least one email client, such as gmail,outlook (or all)');
      expect(r.stdout).toBe('');
    }
  });
});

describe('mailroom lint --check-links (loopback servers only)', () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url === '/ok') return res.end('ok');
      if (req.url === '/gone') return res.writeHead(404).end();
      if (req.url === '/no-head') return res.writeHead(req.method === 'HEAD' ? 405 : 200).end();
      if (req.url === '/moved') return res.writeHead(301, { location: '/ok' }).end();
      if (req.url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
      if (req.url === '/slow') return; // never answers: only the link timeout ends it
      if (req.url === '/big.png') return res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(3 * 1024 * 1024) }).end(req.method === 'HEAD' ? undefined : Buffer.alloc(3 * 1024 * 1024));
      if (req.url === '/small.png') return res.writeHead(200, { 'content-type': 'image/png', 'content-length': '1000' }).end(req.method === 'HEAD' ? undefined : Buffer.alloc(1000));
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('each URL once: HEAD, then GET when HEAD fails; redirects followed; a broken one is an error where it is', async () => {
    seen.length = 0;
    const links = ['ok', 'gone', 'no-head', 'moved', 'loop', 'slow', 'ok'].map((p) => `<a href="${base}/${p}">${p}</a>`).join('\n');
    writeFileSync(join(dir, 'links.html'), `<title>t</title><div style="display:none">p</div>\n${links}\n<img src="${base}/gone" alt="" width="1" height="1">`);
    const r = await lint(['links.html', '--check-links', '--link-timeout', '1500', '--json']);
    expect(r.code).toBe(10);
    const report = json(r.stdout);
    expect(report.links?.map((l) => [l.url.slice(base.length), l.method, l.status ?? l.error])).toEqual([
      ['/ok', 'HEAD', 200],
      ['/gone', 'GET', 404],
      ['/no-head', 'GET', 200],
      ['/moved', 'HEAD', 200],
      ['/loop', 'HEAD', 302],
      ['/slow', 'HEAD', 'timed out'],
    ]);
    const broken = report.results[0]?.findings.filter((f) => f.check === 'link-broken').map((f) => `${f.line}: ${f.message.replace(base, '')}`);
    expect(broken).toEqual([
      '3: link /gone answered 404 (GET)',
      '6: link /loop answered 302: more than 5 redirects (HEAD)',
      '7: link /slow timed out (HEAD)',
      '9: image /gone answered 404 (GET)',
    ]);
    expect(seen.filter((s) => s === 'HEAD /ok' || s === 'GET /ok').length).toBe(2); // /ok once, and once more after /moved
  });

  it('an image over 1 MB is a warning, by the Content-Length its HEAD answered (the body is never read)', async () => {
    seen.length = 0;
    writeFileSync(join(dir, 'images.html'), `<title>t</title><div style="display:none">p</div>\n<img src="${base}/big.png" alt="" width="1" height="1">\n<img src="${base}/small.png" alt="" width="1" height="1">\n<a href="${base}/big.png">a link to it is not an image</a>`);
    const r = await lint(['images.html', '--check-links', '--json']);
    expect(r.code).toBe(0);
    const report = json(r.stdout);
    const sized = report.results[0]?.findings.filter((f) => f.check.startsWith('size-'));
    expect(sized?.map((f) => `${f.severity} ${f.check} ${f.line}: ${f.message.replace(base, '')}`)).toEqual(['warning size-image 2: image /big.png is 3.0 MB']);
    expect(seen).toEqual(['HEAD /big.png', 'HEAD /small.png']);
  });

  it('--max-links bounds the count; the rest is reported as not fetched, never silently', async () => {
    writeFileSync(join(dir, 'many.html'), `<title>t</title>${['a', 'b', 'c'].map((p) => `<a href="${base}/ok?${p}">${p}</a>`).join('')}`);
    const report = json((await lint(['many.html', '--check-links', '--max-links', '2', '--json'])).stdout);
    expect(report.links).toHaveLength(2);
    expect(report.skipped).toEqual(['link check: 1 of 3 URLs not fetched (--max-links 2)']);
  });

  it('without --check-links nothing is fetched', async () => {
    seen.length = 0;
    await lint(['links.html', '--json']);
    expect(seen).toEqual([]);
  });
});
