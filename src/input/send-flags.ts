import { randomUUID } from 'node:crypto';
import { usageError } from '../errors.js';
import type { EmailRequest } from '../schema/index.js';
import { describeIssues, parseEmailRequest } from '../schema/index.js';
import { parseZonedDateTime } from '../schema/datetime.js';
import { parseJsonObject, readJsonObject, readSource } from './sources.js';
import { canonicalSendAt, checkSchedule, parseSendAt } from './time.js';
import { setOwn } from '../schema/own-field.js';

/** `mailroom send`'s own flags, as Commander parses them (docs/sending.md). */
export interface SendFlags {
  from?: string;
  fromName?: string;
  to?: string;
  subject?: string;
  html?: string;
  htmlFile?: string;
  text?: string;
  textFile?: string;
  previewText?: string;
  replyTo?: string;
  property?: string[];
  template?: string;
  var?: string[];
  vars?: string;
  varsFile?: string;
  trackClicks?: boolean;
  trackOpens?: boolean;
  groupBy?: string;
  sendAt?: string;
  idempotencyKey?: string;
  file?: string;
  react?: string;
  props?: string;
  dryRun?: boolean;
}

/** What the flags point at, read from files or stdin. */
export interface LoadedSources {
  file?: Record<string, unknown>;
  html?: string;
  text?: string;
  vars?: Record<string, unknown>;
}

const RAW_ONLY: ReadonlyArray<[keyof SendFlags, string]> = [
  ['from', '--from'],
  ['fromName', '--from-name'],
  ['subject', '--subject'],
  ['html', '--html'],
  ['htmlFile', '--html-file'],
  ['text', '--text'],
  ['textFile', '--text-file'],
  ['previewText', '--preview-text'],
  ['replyTo', '--reply-to'],
  ['property', '--property'],
  ['react', '--react'],
];

/** Flag combinations that can never make one valid email; checked before anything is read. */
export function checkFlagConflicts(f: SendFlags): void {
  const pairs: Array<[keyof SendFlags, string, keyof SendFlags, string]> = [
    ['html', '--html', 'htmlFile', '--html-file'],
    ['text', '--text', 'textFile', '--text-file'],
    ['vars', '--vars', 'varsFile', '--vars-file'],
    ['react', '--react', 'html', '--html'],
    ['react', '--react', 'htmlFile', '--html-file'],
  ];
  for (const [a, an, b, bn] of pairs) if (given(f[a]) && given(f[b])) throw usageError(`${an} and ${bn} cannot be used together`);
  if (given(f.template)) {
    const raw = RAW_ONLY.find(([k]) => given(f[k]));
    if (raw) throw usageError(`${raw[1]} cannot be used with --template (a templated email takes --to, --var, --vars and the common flags)`);
  }
  if (given(f.props) && !given(f.react)) throw usageError('--props needs --react');
  const stdinUsers = (['file', 'htmlFile', 'textFile', 'varsFile'] as const).filter((k) => f[k] === '-');
  if (stdinUsers.length > 1) throw usageError(`only one of ${stdinUsers.map(flagName).join(', ')} can read stdin (-)`);
}

export async function loadSources(f: SendFlags, cwd: string, stdin: (what: string) => AsyncIterable<Buffer | string>): Promise<LoadedSources> {
  const loaded: LoadedSources = {};
  if (f.file !== undefined) loaded.file = await readJsonObject(f.file, '--file', cwd, stdin('the email'));
  if (f.htmlFile !== undefined) loaded.html = await readSource(f.htmlFile, '--html-file', cwd, stdin('the HTML body'));
  if (f.textFile !== undefined) loaded.text = await readSource(f.textFile, '--text-file', cwd, stdin('the text body'));
  if (f.vars !== undefined) loaded.vars = parseJsonObject(f.vars, '--vars');
  if (f.varsFile !== undefined) loaded.vars = await readJsonObject(f.varsFile, '--vars-file', cwd, stdin('the template variables'));
  return loaded;
}

export interface BuildOptions {
  now?: Date;
  newKey?: () => string;
  /** HTML rendered from `--react`, when used. */
  renderedHtml?: string;
}

/**
 * Builds the request body: the `--file` payload, then each given flag over it. Every body gets an
 * idempotency key so a retried send can never deliver twice.
 */
export function buildEmailPayload(f: SendFlags, loaded: LoadedSources, opts: BuildOptions = {}): Record<string, unknown> {
  const now = opts.now ?? new Date();
  const body: Record<string, unknown> = { ...(loaded.file ?? {}) };
  const set = (field: string, value: unknown) => {
    if (value !== undefined) body[field] = value;
  };
  set('from', f.from);
  set('fromName', f.fromName);
  set('to', f.to);
  set('subject', f.subject);
  set('html', f.html ?? loaded.html ?? opts.renderedHtml);
  set('text', f.text ?? loaded.text);
  set('previewText', f.previewText);
  set('replyTo', f.replyTo);
  set('template', f.template);
  set('groupBy', f.groupBy);
  if (f.sendAt !== undefined) body.sendAt = parseSendAt(f.sendAt, now);
  else if (body.sendAt !== undefined) body.sendAt = canonicalSendAt(body.sendAt);

  if (f.property?.length) body.contactProperties = { ...asObject(body.contactProperties), ...pairs(f.property, '--property') };

  const templated = body.template !== undefined;
  const varFlags = loaded.vars !== undefined || Boolean(f.var?.length);
  if (varFlags && !templated) throw usageError(`${f.var?.length ? '--var' : f.vars !== undefined ? '--vars' : '--vars-file'} needs --template (or "template" in --file)`);
  if (templated) body.variables = { ...asObject(body.variables), ...(loaded.vars ?? {}), ...pairs(f.var ?? [], '--var') };

  if (f.trackClicks !== undefined || f.trackOpens !== undefined) {
    const settings = { ...asObject(body.settings) };
    if (f.trackClicks !== undefined) settings.trackClicks = f.trackClicks;
    if (f.trackOpens !== undefined) settings.trackOpens = f.trackOpens;
    body.settings = settings;
  }
  body.idempotencyKey = f.idempotencyKey ?? body.idempotencyKey ?? (opts.newKey ?? randomUUID)();
  return body;
}

const FIELD_FLAGS: Record<string, string> = {
  from: '--from',
  fromName: '--from-name',
  to: '--to',
  subject: '--subject',
  html: '--html, --html-file or --react',
  text: '--text or --text-file',
  previewText: '--preview-text',
  replyTo: '--reply-to',
  contactProperties: '--property',
  template: '--template',
  variables: '--var, --vars or --vars-file',
  settings: '--track-clicks, --track-opens',
  groupBy: '--group-by',
  sendAt: '--send-at',
  idempotencyKey: '--idempotency-key',
};

/** Checks the body against the raw or templated schema and the schedule; one line naming each bad field. */
export function validateEmail(body: Record<string, unknown>, now: Date = new Date()): EmailRequest {
  const parsed = parseEmailRequest(body);
  if (!parsed.ok) {
    const named = (path: string) => {
      const field = path.split('.')[0] as string;
      const flag = Object.hasOwn(FIELD_FLAGS, field) ? FIELD_FLAGS[field] : undefined;
      return flag ? `${path} (${flag})` : path;
    };
    throw usageError(`invalid ${parsed.kind} email: ${describeIssues(parsed.issues, named)}`);
  }
  if (parsed.email.sendAt !== undefined) checkSchedule(parseZonedDateTime(parsed.email.sendAt)!, now, 'sendAt');
  return parsed.email;
}

/** `key=value` pairs of a repeatable flag; the first `=` splits, so values may contain `=`. */
export function pairs(values: readonly string[], flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of values) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw usageError(`${flag}: expected key=value, got "${item}"`);
    setOwn(out, item.slice(0, eq).trim(), item.slice(eq + 1));
  }
  return out;
}


function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function given(value: unknown): boolean {
  return value !== undefined && !(Array.isArray(value) && value.length === 0);
}

function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}
