import type { CommandContext } from './context.js';
import { STATUS_CODES } from 'node:http';
import { isMailroomError, MailroomError, usageError } from '../errors.js';
import { ApiError } from '../transport/http-errors.js';
import { splitField, setField, typedValue, type ApiField } from '../input/api-fields.js';
import { oneLine } from '../output/one-line.js';
import { refuseDiscardingSecret } from './shared/secret-once.js';
import { printJson } from '../output/print.js';
import { drained } from '../output/drained.js';
import { mask, redactValue, reveal } from '../secrets.js';
import { readSource } from '../input/sources.js';
import { parseJsonText } from '../input/json-text.js';
import { sourceLabel } from '../input/text.js';
import { BATCH_BODY_LIMIT } from '../schema/limits.js';
import { stdinFor } from '../input/stdin.js';

export interface ApiOptions {
  method: string;
  path: string;
  data?: string;
  input?: string;
  rawField?: string[];
  field?: string[];
  paginate?: boolean;
  slurp?: boolean;
  include?: boolean;
}

const METHODS = ['GET', 'POST', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

/**
 * The request path for `api`: relative to the base URL and under /v1. It is normalised the way the
 * URL will be (dot segments resolved, backslashes read as slashes) and refused when that would
 * change it, so what is checked is what is sent: `/v1/../../_sandbox/emails` must not carry the
 * key outside /v1. Encoded slashes and dots, absolute URLs and control characters are refused too.
 */
export function apiPath(path: string): string {
  // '' would be `/v1/` itself: a request to no endpoint (an unset shell variable).
  if (path.trim() === '') throw usageError('path is empty: give one such as /v1/webhooks');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(path)) throw usageError(`path "${path}" contains control characters`);
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//')) {
    throw usageError(`path "${path}": give a path such as /v1/webhooks, not a URL (the host comes from --base-url)`);
  }
  if (/\s/.test(path)) throw usageError(`path "${path}" contains spaces; URL-encode them`);
  const p = path.startsWith('/') ? path : `/${path}`;
  const pathname = p.split(/[?#]/, 1)[0]!;
  if (/%(2f|5c)/i.test(pathname)) throw usageError(`path "${path}": encoded slashes (%2F, %5C) are not allowed in a path`);
  if (pathname.includes('\\')) throw usageError(`path "${path}": backslashes are not allowed in a path`);
  if (pathname.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment))) throw usageError(`path "${path}": "." and ".." segments are not allowed`);
  if (/^\/v\d+(\/|\?|$)/.test(p) && !/^\/v1(\/|\?|$)/.test(p)) throw usageError(`path "${path}": this CLI speaks /v1 only`);
  const full = /^\/v1(\/|\?|$)/.test(p) ? p : `/v1${p}`;
  // What the URL will be, checked once more: it must still be under /v1.
  if (!/^\/v1(\/|$)/.test(new URL(full, 'http://mailroom.invalid').pathname)) throw usageError(`path "${path}" leaves /v1`);
  return full;
}

export async function run(opts: ApiOptions, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  const method = opts.method.toUpperCase() as Method;
  if (!METHODS.includes(method)) throw usageError(`method "${opts.method}": expected one of ${METHODS.join(', ')}`);
  checkCombinations(opts, method);
  let path = apiPath(opts.path);
  let body: unknown;
  if (opts.data !== undefined) body = await readData(ctx, opts.data);
  if (opts.input !== undefined) body = await readData(ctx, opts.input === '-' ? '-' : `@${opts.input}`, '--input');
  const fields = await fieldsOf(ctx, opts);
  let source = opts.input !== undefined ? '--input' : '--data';
  if (fields) {
    // As gh: the body of a POST that has none of its own, else the query string.
    if (method === 'POST' && body === undefined) {
      body = fields;
      source = 'the -f/-F fields';
    } else path = withQuery(path, fields);
  }
  const creates = createdSecret(method, path);
  const output = { quiet: globals.quiet, jsonFields: ctx.jsonFields };
  if (creates === 'key') refuseDiscardingSecret(output, 'secret', 'secretKey', { quiet: 'drop -q' });
  const ownToken = typeof body === 'object' && body !== null && typeof (body as { token?: unknown }).token === 'string';
  if (creates === 'webhook token' && !ownToken) refuseDiscardingSecret(output, 'webhook token', 'token', { quiet: 'put your own "token" in --data, or drop -q', fields: 'put your own "token" in --data' });
  const api = await ctx.api();
  if (opts.paginate) {
    await paginate(ctx, api, path, Boolean(opts.slurp));
    return;
  }
  let answer: { status: number; headers: Record<string, string | string[] | undefined> } | undefined;
  const onAnswer = (status: number, headers: Record<string, string | string[] | undefined>) => (answer = { status, headers });
  const res = await api.request({ method, path, body, signal: ctx.signal, ...(opts.include ? { onAnswer } : {}) }).catch((err: unknown) => {
    if (isMailroomError(err) && err.mayHaveBeenSent) err.hints.push(...mayHaveGoneThrough(path, body, source));
    // As curl -i and gh api -i: an error answer is shown too (the exit code still says the error).
    if (opts.include && !globals.quiet && err instanceof ApiError && answer?.status === err.status) {
      ctx.io.out.write(statusAndHeaders(answer.status, answer.headers));
      if (err.body !== undefined) {
        if (typeof err.body === 'string') ctx.io.out.write(err.body.endsWith('\n') ? err.body : `${err.body}\n`);
        else printJson(ctx, err.body);
      }
    }
    throw err;
  });
  if (globals.quiet) return;
  if (opts.include) ctx.io.out.write(statusAndHeaders(res.status, res.headers));
  if (res.body === undefined) return;
  if (creates) for (const secret of newSecrets(res.body)) reveal(secret);
  printJson(ctx, res.body);
}

/** Flags that cannot go together, refused before anything is read or sent. */
function checkCombinations(opts: ApiOptions, method: Method): void {
  if (opts.data !== undefined && opts.input !== undefined) throw usageError('--data and --input both give the request body: give one of them');
  for (const [flag, given] of [['--data', opts.data], ['--input', opts.input]] as const) {
    if (given !== undefined && method !== 'POST') throw usageError(`${flag}: a ${method} request has no body`);
  }
  if (opts.slurp && !opts.paginate) throw usageError('--slurp gathers the pages of --paginate: add --paginate');
  if (opts.paginate && method !== 'GET') throw usageError(`--paginate follows the pages of a list: it needs GET, not ${method}`);
  if (opts.paginate && opts.include) throw usageError('--include and --paginate: the headers would break the JSON lines; give one of them');
  const stdin = [opts.data === '-', opts.input === '-', ...[...(opts.field ?? [])].map((f) => f.includes('=@-'))].filter(Boolean).length;
  if (stdin > 1) throw usageError('stdin can be read once: give it to one of --data -, --input - and -F key=@-');
}

/** The -f and -F fields as one object, or undefined when none was given. */
async function fieldsOf(ctx: CommandContext, opts: ApiOptions): Promise<Record<string, unknown> | undefined> {
  const given: ApiField[] = [...(opts.rawField ?? []).map((text) => ({ flag: '-f' as const, text })), ...(opts.field ?? []).map((text) => ({ flag: '-F' as const, text }))];
  if (given.length === 0) return undefined;
  const fields: Record<string, unknown> = {};
  for (const field of given) {
    const { path, append, value } = splitField(field);
    let typed: unknown = value;
    if (field.flag === '-F') {
      typed = value.startsWith('@') ? await readSource(value.slice(1), `-F ${path.join('.')}`, ctx.cwd, stdinFor(ctx, `the value of -F ${path.join('.')}`)) : typedValue(value);
    }
    setField(fields, field.text.slice(0, field.text.indexOf('=')), path, append, typed);
  }
  return fields;
}

/** `path` with the fields as its query string (a list as the key repeated); nested objects have no query form. */
function withQuery(path: string, fields: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (typeof v === 'object' && v !== null) throw usageError(`-f/-F ${key}: a nested field goes in a request body; a query string holds plain values`);
      query.append(key, String(v));
    }
  }
  return `${path}${path.includes('?') ? '&' : '?'}${query.toString()}`;
}

/** `HTTP 200 OK` and the answer's headers, as `-i` prints them (held secrets are masked by the output guard). */
function statusAndHeaders(status: number, headers: Record<string, string | string[] | undefined>): string {
  const lines = [`HTTP ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd()];
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) lines.push(`${name}: ${SECRET_HEADER.test(name) ? mask(v) : oneLine(v)}`);
  }
  return `${lines.join('\n')}\n\n`;
}

/** Headers whose value is a credential, masked whatever it is. */
const SECRET_HEADER = /^(set-cookie|cookie|authorization|proxy-authorization|x-api-key)$|token|secret/i;

type Transport = Awaited<ReturnType<CommandContext['api']>>;

/**
 * `--paginate`: GETs the list page after page, following its `hasMore` and `startAt` (the cursor of
 * the API's lists; docs/input-and-output.md), each page as the API answered it. Without `--slurp`
 * each page is one line as soon as it came (NDJSON; through --jq each page on its own, as gh's), so
 * a long listing streams; with it, one JSON array of the pages at the end.
 */
async function paginate(ctx: CommandContext, api: Transport, path: string, slurp: boolean): Promise<void> {
  const pages: unknown[] = [];
  const seen = new Set<string>();
  for (let next: string | undefined = path; next !== undefined; ) {
    const res: { body: unknown } = await api.request({ method: 'GET', path: next, signal: ctx.signal });
    const list = listOf(res.body);
    if (!list) throw usageError(`--paginate: ${oneLine(path)} did not answer with a list ({ items, hasMore }); it lists nothing to follow`);
    if (slurp) pages.push(res.body);
    else if (!ctx.globals.quiet) {
      writePage(ctx, res.body);
      // The next page is asked for once a slow reader has taken this one: a long listing streams
      // at the reader's pace instead of piling up in memory.
      const waiting = drained(ctx.io.out);
      if (waiting) await waiting;
    }
    if (list.hasMore !== true) break;
    const cursor = list.startAt;
    if (typeof cursor !== 'string' || cursor === '' || seen.has(cursor)) {
      throw new MailroomError('unexpected-response', `--paginate: the API says more pages exist but gives no new startAt to ask for them (after ${seen.size + 1} ${seen.size === 0 ? 'page' : 'pages'})`);
    }
    seen.add(cursor);
    next = pageAt(path, cursor);
  }
  if (slurp && !ctx.globals.quiet) printJson(ctx, pages);
}

/** The list in an answer: the answer itself, or its one property holding `{ items, hasMore }` (`{ apiKeys: {...} }`). */
function listOf(body: unknown): { hasMore?: unknown; startAt?: unknown } | undefined {
  const isList = (v: unknown): v is { items: unknown[]; hasMore?: unknown; startAt?: unknown } => typeof v === 'object' && v !== null && Array.isArray((v as { items?: unknown }).items);
  if (isList(body)) return body;
  if (typeof body !== 'object' || body === null) return undefined;
  const lists = Object.values(body).filter(isList);
  return lists.length === 1 ? lists[0] : undefined;
}

/** The first request's path with `startAt` set to the cursor (replacing one the user gave). */
function pageAt(path: string, cursor: string): string {
  const [base, query = ''] = path.split(/\?(.*)/s, 2) as [string, string?];
  const params = new URLSearchParams(query);
  params.set('startAt', cursor);
  return `${base}?${params.toString()}`;
}

/** One page as one line: compact JSON (secrets masked), or what --jq makes of it. */
function writePage(ctx: CommandContext, page: unknown): void {
  const shown = redactValue(page, { allowRevealed: true });
  if (!ctx.jq) {
    ctx.io.out.write(`${JSON.stringify(shown)}\n`);
    return;
  }
  const out = ctx.jq.run(shown, ctx.io.isStdoutTTY);
  if (out.error !== undefined) {
    ctx.io.out.write(`${JSON.stringify(shown)}\n`);
    throw new MailroomError('unexpected', `--jq: ${out.error} (on a page; that page is printed whole above)`);
  }
  ctx.io.out.write(out.text);
}

/**
 * `api` sends the body as given, so it adds no idempotency key of its own: after a failure that the
 * request may have outlived, it says so, and for a send whether running it again is safe.
 */
function mayHaveGoneThrough(path: string, body: unknown, source: string): string[] {
  const emails = /^\/v1\/emails\/batch\/?(\?|$)/.test(path)
    ? (body as { emails?: unknown } | undefined)?.emails
    : /^\/v1\/emails\/?(\?|$)/.test(path)
      ? [body]
      : undefined;
  if (!Array.isArray(emails)) return ['the request may have reached the API and been carried out: check before sending it again'];
  const keyed = emails.length > 0 && emails.every((e) => typeof (e as { idempotencyKey?: unknown } | null)?.idempotencyKey === 'string');
  return keyed
    ? [`the request may have reached the API: sending it again with the same ${source} is safe (its idempotencyKey)`]
    : [
        'the request may have reached the API and been carried out: check before sending it again',
        `an "idempotencyKey" ${emails.length === 1 && !path.includes('batch') ? `in ${source}` : `on each email in ${source}`} makes sending it again safe: the API sends the email at most once per key`,
      ];
}

/** Creating a key or a webhook is the one moment its secret is shown; every other answer is masked. */
const CREATION_PATHS: ReadonlyArray<[RegExp, 'key' | 'webhook token']> = [
  [/^\/v1\/workspaces\/[^/?]+\/api-keys\/?(\?|$)/, 'key'],
  [/^\/v1\/webhooks\/?(\?|$)/, 'webhook token'],
];
function createdSecret(method: Method, path: string): 'key' | 'webhook token' | undefined {
  return method === 'POST' ? CREATION_PATHS.find(([re]) => re.test(path))?.[1] : undefined;
}

/** The new key's `secretKey` or the new webhook's `token` in a creation answer. */
function newSecrets(body: unknown): string[] {
  const created = body && typeof body === 'object' ? ((body as Record<string, unknown>).apiKey ?? (body as Record<string, unknown>).webhook) : undefined;
  if (!created || typeof created !== 'object') return [];
  const { secretKey, token } = created as Record<string, unknown>;
  return [secretKey, token].filter((v): v is string => typeof v === 'string');
}

async function readData(ctx: CommandContext, spec: string, flag = '--data'): Promise<unknown> {
  if (spec !== '-' && !spec.startsWith('@')) return parseJsonText(spec, flag);
  const file = spec === '-' ? '-' : spec.slice(1);
  // The largest request the API takes is a batch.
  const text = await readSource(file, flag, ctx.cwd, stdinFor(ctx, 'the request body'), BATCH_BODY_LIMIT);
  return parseJsonText(text, sourceLabel(file, flag));
}
