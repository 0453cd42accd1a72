import type { CommandContext } from '../client.js';
import { isMailroomError, usageError } from '../errors.js';
import { refuseDiscardingSecret } from './shared/secret-once.js';
import { printJson } from '../output/print.js';
import { reveal } from '../secrets.js';
import { readSource } from '../input/sources.js';
import { parseJsonText } from '../input/json-text.js';
import { sourceLabel } from '../input/text.js';
import { BATCH_BODY_LIMIT } from '../schema/limits.js';
import { stdinFor } from '../input/stdin.js';

export interface ApiOptions {
  method: string;
  path: string;
  data?: string;
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
  const path = apiPath(opts.path);
  let body: unknown;
  if (opts.data !== undefined) {
    if (method !== 'POST') throw usageError(`--data: a ${method} request has no body`);
    body = await readData(ctx, opts.data);
  }
  const creates = createdSecret(method, path);
  const output = { quiet: globals.quiet, jsonFields: ctx.jsonFields };
  if (creates === 'key') refuseDiscardingSecret(output, 'secret', 'secretKey', { quiet: 'drop -q' });
  const ownToken = typeof body === 'object' && body !== null && typeof (body as { token?: unknown }).token === 'string';
  if (creates === 'webhook token' && !ownToken) refuseDiscardingSecret(output, 'webhook token', 'token', { quiet: 'put your own "token" in --data, or drop -q', fields: 'put your own "token" in --data' });
  const res = await (await ctx.api())
    .request({ method, path, body, signal: ctx.signal })
    .catch((err: unknown) => {
      if (isMailroomError(err) && err.mayHaveBeenSent) err.hints.push(...mayHaveGoneThrough(path, body));
      throw err;
    });
  if (globals.quiet) return;
  if (res.body === undefined) return;
  if (creates) for (const secret of newSecrets(res.body)) reveal(secret);
  printJson(ctx, res.body);
}

/**
 * `api` sends the body as given, so it adds no idempotency key of its own: after a failure that the
 * request may have outlived, it says so, and for a send whether running it again is safe.
 */
function mayHaveGoneThrough(path: string, body: unknown): string[] {
  const emails = /^\/v1\/emails\/batch\/?(\?|$)/.test(path)
    ? (body as { emails?: unknown } | undefined)?.emails
    : /^\/v1\/emails\/?(\?|$)/.test(path)
      ? [body]
      : undefined;
  if (!Array.isArray(emails)) return ['the request may have reached the API and been carried out: check before sending it again'];
  const keyed = emails.length > 0 && emails.every((e) => typeof (e as { idempotencyKey?: unknown } | null)?.idempotencyKey === 'string');
  return keyed
    ? ['the request may have reached the API: sending it again with the same --data is safe (its idempotencyKey)']
    : [
        'the request may have reached the API and been carried out: check before sending it again',
        `an "idempotencyKey" ${emails.length === 1 && !path.includes('batch') ? 'in --data' : 'on each email in --data'} makes sending it again safe: the API sends the email at most once per key`,
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

async function readData(ctx: CommandContext, spec: string): Promise<unknown> {
  if (spec !== '-' && !spec.startsWith('@')) return parseJsonText(spec, '--data');
  const file = spec === '-' ? '-' : spec.slice(1);
  // The largest request the API takes is a batch.
  const text = await readSource(file, '--data', ctx.cwd, stdinFor(ctx, 'the request body'), BATCH_BODY_LIMIT);
  return parseJsonText(text, sourceLabel(file, '--data'));
}
