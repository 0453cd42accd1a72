import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import type { IO } from '../context.js';
import { usageError } from '../errors.js';
import { isMailroomError } from '../errors.js';
import { openSource, readInput } from '../input/detect.js';
import { prepareEntry } from '../input/entries.js';
import { buildEmailPayload, validateEmail } from '../input/send-flags.js';
import { parseJsonObject, readSource } from '../input/sources.js';
import { renderReactEmail } from '../render/react-email.js';
import type { EmailUnderCheck } from './checks.js';
import { placeholderFindings } from './checks.js';
import { finding, type Finding } from './rules.js';

/** One thing to check: an email body, or findings about an entry that has none to check. */
export interface LintTarget {
  /** How reports name it: the file as given, `stdin`, `emails.ndjson entry 3`. */
  input: string;
  /** The file it came from, relative as given (SARIF and JUnit locations); absent for stdin. */
  file?: string;
  /** The line of the file where the entry starts (a batch entry, a --file object). */
  line?: number;
  /** The batch entries (1-based) that share this body: each distinct body is checked once. Entries read later are added to it. */
  entries?: number[];
  /** The batch input's label: a body shared by several entries is named `<batch> entries 1-3, 7` once all are read. */
  batch?: string;
  email?: EmailUnderCheck;
  /** Found while reading the input, before the checks (a template variable the entry lacks). */
  findings: Finding[];
  /** Checks that could not run on it, and why. */
  skipped: string[];
}

export interface LintInputOptions {
  /** HTML files, React email files (.tsx, .jsx) or `-` (stdin). */
  operands: string[];
  /** One email object as `send --file` takes it (raw or templated). */
  file?: string;
  /** A batch file: every entry, each distinct body once. */
  batch?: string;
  /** A folder with each template's source as `<name>.html`, to check templated entries. */
  templates?: string;
  /** Props for React email files, as JSON. */
  props?: string;
}

type Stdin = (what: string) => AsyncIterable<Buffer | string>;

/**
 * Reads every input named into the targets the checks run on, one at a time: a batch of a million
 * personalised bodies is checked as it is read, never held whole.
 */
export async function* lintTargets(opts: LintInputOptions, cwd: string, io: Pick<IO, 'in' | 'isStdinTTY'>, stdin: Stdin): AsyncGenerator<LintTarget> {
  // An unset shell variable ("$EMAIL") is an empty name: refused in words, never read as the current directory.
  for (const [flag, v] of [...opts.operands.map((o) => ['lint', o] as const), ['--file', opts.file], ['--batch', opts.batch]] as const) {
    if (v === '') throw usageError(`${flag}: the file name is empty`);
  }
  const usesStdin = [...opts.operands.filter((o) => o === '-'), ...[opts.file, opts.batch].filter((v) => v === '-')];
  if (usesStdin.length > 1) throw usageError('only one input can read stdin (-)');
  const operands = opts.operands.length === 0 && opts.file === undefined && opts.batch === undefined ? ['-'] : opts.operands;
  if (operands.includes('-') && io.isStdinTTY) throw usageError('no input: give HTML files, --file or --batch, or pipe HTML into stdin', ['mailroom lint email.html', 'render-email | mailroom lint -']);
  const props = opts.props === undefined ? {} : parseJsonObject(opts.props, '--props');
  if (opts.props !== undefined && !operands.some(isReact)) throw usageError('--props needs a React email file (.tsx or .jsx) to render');

  for (const spec of operands) {
    if (isReact(spec)) {
      const rendered = await renderReactEmail(spec, props, cwd, spec);
      yield { input: spec, email: { html: rendered.html, text: rendered.text }, findings: [], skipped: [] };
      continue;
    }
    // Named as `lint <file>` in errors: "lint: cannot read x.html: no such file".
    const html = await readSource(spec, spec === '-' ? 'stdin' : 'lint', cwd, stdin('the HTML to check'));
    // Nothing to check is not a clean email: a CI gate fed no files (an empty stdin) must not pass.
    if (html.trim() === '') {
      if (spec === '-') throw usageError('lint: stdin is empty: no HTML to check', ['name the files to check (mailroom lint emails/*.html), or pipe HTML in']);
      throw usageError(`lint: ${spec} is empty: no HTML to check`);
    }
    const text = spec === '-' ? undefined : await beside(spec, cwd);
    yield { input: spec === '-' ? 'stdin' : spec, ...(spec === '-' ? {} : { file: spec }), email: { html, ...(text === undefined ? {} : { text }) }, findings: [], skipped: [] };
  }
  const templates = new Templates(opts.templates, cwd);
  if (opts.file !== undefined) {
    const text = await readSource(opts.file, '--file', cwd, stdin('the email'));
    const entry = parseJsonObject(text, opts.file === '-' ? '--file (stdin)' : `--file ${opts.file}`);
    const label = opts.file === '-' ? 'stdin' : opts.file;
    yield await entryTarget(entry, { input: label, ...(opts.file === '-' ? {} : { file: opts.file }), line: 1 }, templates, sendRefuses(entry));
  }
  if (opts.batch !== undefined) yield* batchTargets(opts.batch, cwd, io, templates);
}

const isReact = (spec: string): boolean => /\.(tsx|jsx)$/i.test(spec);

/** `welcome.txt` beside `welcome.html`: its plain-text part, when there is one. */
async function beside(spec: string, cwd: string): Promise<string | undefined> {
  if (!/\.html?$/i.test(spec)) return undefined;
  const txt = spec.slice(0, -extname(spec).length) + '.txt';
  try {
    return await readFile(resolve(cwd, txt), 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Every entry of a batch input; entries with the same body share one target (and one check): only
 * a digest of each distinct body is kept, with the list of its entries.
 */
async function* batchTargets(spec: string, cwd: string, io: Pick<IO, 'in' | 'isStdinTTY'>, templates: Templates): AsyncGenerator<LintTarget> {
  const source = await openSource(spec, cwd, io);
  const { items } = await readInput(source, undefined);
  const label = source.label;
  const byBody = new Map<string, number[]>();
  const now = new Date();
  // Entries are numbered as batch numbers them (its errors, --report and idempotency keys): from 0.
  let index = -1;
  for await (const item of items) {
    index++;
    const where = { input: `${label} entry ${index}`, ...(spec === '-' ? {} : { file: spec }), line: item.line };
    // batch's own check of the entry, so lint passes exactly what batch would send.
    const prepared = await prepareEntry(item, index, FLAG_GIVEN, () => 'lint', () => now);
    const problem = prepared.ok ? undefined : prepared.error;
    if (typeof item.value !== 'object' || item.value === null || Array.isArray(item.value)) {
      yield { ...where, entries: [index], findings: [finding('entry-invalid', problem ?? 'the entry is not a JSON object', { line: item.line })], skipped: [] };
      continue;
    }
    const target = await entryTarget(item.value as Record<string, unknown>, where, templates, problem);
    // The fields (to, sendAt, ...) differ per entry: their findings stay with the entry.
    if (target.findings.length > 0) yield { ...where, entries: [index], findings: target.findings, skipped: [] };
    if (target.email === undefined && target.skipped.length === 0) continue;
    const body = target.email ? [target.email.html, target.email.text, target.email.subject, target.email.previewText] : ['skipped', ...target.skipped];
    const key = createHash('sha256').update(JSON.stringify(body)).digest('base64');
    const seen = byBody.get(key);
    if (seen) {
      seen.push(index);
      continue;
    }
    const entries = [index];
    byBody.set(key, entries);
    yield { ...where, entries, batch: label, ...(target.email ? { email: target.email } : {}), findings: [], skipped: target.skipped };
  }
}

/** 1, 2, 3, 5 → "1-3, 5". */
export function ranges(ns: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < ns.length; i++) {
    let j = i;
    while (j + 1 < ns.length && ns[j + 1] === (ns[j] as number) + 1) j++;
    out.push(j === i ? String(ns[i]) : `${ns[i]}-${ns[j]}`);
    i = j;
  }
  return out.join(', ');
}

const FIELDS = ['from', 'fromName', 'to', 'replyTo', 'sendAt', 'groupBy', 'template'] as const;

/**
 * Fields a command line may give in place of the entry (`batch --from --subject`, `send --file
 * --to`): their absence is not the entry's fault, so the check fills them. Anything else the
 * parsers refuse (an unknown field, a wrong type, a bad address) is.
 */
const FLAG_GIVEN = { from: 'lint@example.com', subject: 'lint' } as const;

/** Why `send --file` would refuse this object (its own words, without the `mailroom: ` prefix), or undefined. */
function sendRefuses(entry: Record<string, unknown>): string | undefined {
  const filled = { ...entry };
  if (!('template' in filled)) for (const [k, v] of Object.entries(FLAG_GIVEN)) if (filled[k] === undefined) filled[k] = v;
  if (filled.to === undefined) filled.to = 'lint@example.com';
  try {
    validateEmail(buildEmailPayload({}, { file: filled }, { newKey: () => 'lint' }));
    return undefined;
  } catch (err) {
    if (isMailroomError(err)) return err.message;
    throw err;
  }
}

/**
 * One email object (raw or templated) into what the checks see; a placeholder in a field is found
 * here. `problem` is why send or batch would refuse it: an error finding, its body still checked.
 */
async function entryTarget(entry: Record<string, unknown>, where: Omit<LintTarget, 'findings' | 'skipped'>, templates: Templates, problem: string | undefined): Promise<LintTarget> {
  const findings: Finding[] = [];
  if (problem !== undefined) findings.push(finding('entry-invalid', problem, { line: where.line }));
  for (const name of FIELDS) {
    const value = entry[name];
    for (const v of Array.isArray(value) ? value : [value]) if (typeof v === 'string') findings.push(...placeholderFindings(v, name).map((f) => ({ ...f, line: where.line })));
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  if (typeof entry.template === 'string') {
    const source = await templates.get(entry.template);
    if (source === undefined) {
      const why = templates.dir === undefined ? 'give --templates <dir> with its source as <name>.html to check it' : `no ${entry.template}.html in ${templates.dir}`;
      return { ...where, findings, skipped: [`template "${entry.template}" is stored with the service: ${why}`] };
    }
    const variables = (typeof entry.variables === 'object' && entry.variables !== null ? entry.variables : {}) as Record<string, unknown>;
    const { html, missing } = fillTemplate(source, variables);
    for (const name of missing) findings.push({ ...finding('template-variable-missing', `template "${entry.template}" uses {{${name}}}, which the entry's variables do not give`), line: where.line });
    return { ...where, email: { html }, findings, skipped: [] };
  }
  const html = str(entry.html);
  if (html === undefined) {
    if (problem === undefined) findings.push(finding('entry-invalid', 'the entry has neither html nor template', { line: where.line }));
    return { ...where, findings, skipped: [] };
  }
  const text = str(entry.text);
  const subject = str(entry.subject);
  const previewText = str(entry.previewText);
  return { ...where, email: { html, ...(text === undefined ? {} : { text }), ...(subject === undefined ? {} : { subject }), ...(previewText === undefined ? {} : { previewText }) }, findings, skipped: [] };
}

const TEMPLATE_VARIABLE = /\{\{\s*([\w.-]+)\s*\}\}/g;

/** Fills `{{name}}` (a dotted name reaches into nested variables) and lists the names it could not. */
export function fillTemplate(source: string, variables: Record<string, unknown>): { html: string; missing: string[] } {
  const missing = new Set<string>();
  const html = source.replace(TEMPLATE_VARIABLE, (_m, name: string) => {
    let value: unknown = Object.hasOwn(variables, name) ? variables[name] : undefined;
    if (value === undefined && name.includes('.')) {
      value = variables;
      for (const part of name.split('.')) value = typeof value === 'object' && value !== null && Object.hasOwn(value, part) ? (value as Record<string, unknown>)[part] : undefined;
    }
    if (value === undefined || value === null) {
      missing.add(name);
      return '';
    }
    return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  });
  return { html, missing: [...missing] };
}

/** Template sources from --templates, each read once. */
class Templates {
  readonly dir: string | undefined;
  private readonly cache = new Map<string, Promise<string | undefined>>();
  constructor(dir: string | undefined, cwd: string) {
    this.dir = dir;
    this.root = dir === undefined ? undefined : resolve(cwd, dir);
  }
  private readonly root: string | undefined;
  get(name: string): Promise<string | undefined> {
    if (this.root === undefined || !/^[\w.-]+$/.test(name) || name.startsWith('.')) return Promise.resolve(undefined);
    let p = this.cache.get(name);
    if (!p) {
      p = readFile(join(this.root, `${name}.html`), 'utf8').catch(() => undefined);
      this.cache.set(name, p);
    }
    return p;
  }
}
