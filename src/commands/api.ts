import type { Command } from 'commander';
import type { Context } from '../context.js';
import { usageError } from '../errors.js';
import type { Globals } from '../config/settings.js';
import { refuseQuietDiscard } from './secret-once.js';

export interface ApiOptions {
  data?: string;
}

const METHODS = ['GET', 'POST', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

export function register(parent: Command, ctx: Context): void {
  parent
    .command('api')
    .description('call any /v1 endpoint with your credentials and print the JSON answer')
    .argument('<method>', METHODS.join(' | '))
    .argument('<path>', 'e.g. /v1/webhooks (the /v1 prefix is added when missing)')
    .option('-d, --data <json|@file|->', 'JSON request body: inline, @file, or - for stdin (POST only)')
    .addHelpText(
      'after',
      `
Only the body is printed (stdout), secrets masked (secretKey, token) except in the answer that
creates a key or webhook, the one time they are shown. A non-2xx answer exits with the usual codes (3 auth, 4 rejected,
5 limits, 6 network) and the API's message on stderr. A POST is sent once, never retried.

Examples:
  $ mailroom api GET /v1/api-keys/check
  $ mailroom api GET webhooks
  $ mailroom api POST /v1/webhooks/wh_123 --data '{"events":["CONTACT_CREATED"]}'
  $ mailroom api POST /v1/emails --data @email.json
  $ mailroom api DELETE /v1/webhooks/wh_123`,
    )
    .action(async (method: string, path: string, opts: ApiOptions, cmd: Command) => {
      await run(ctx, cmd.optsWithGlobals<Globals>(), method, path, opts);
    });
}

export function apiPath(path: string): string {
  const p = path.startsWith('/') ? path : `/${path}`;
  if (/^\/v1(\/|\?|$)/.test(p)) return p;
  if (/^\/v\d+(\/|$)/.test(p)) throw usageError(`path "${path}": this CLI speaks /v1 only`);
  return `/v1${p}`;
}

export async function run(ctx: Context, globals: Globals, rawMethod: string, rawPath: string, opts: ApiOptions): Promise<void> {
  const method = rawMethod.toUpperCase() as Method;
  if (!METHODS.includes(method)) throw usageError(`method "${rawMethod}": expected one of ${METHODS.join(', ')}`);
  const path = apiPath(rawPath);
  if (/\s/.test(path)) throw usageError(`path "${rawPath}" contains spaces; URL-encode them`);
  let body: unknown;
  if (opts.data !== undefined) {
    if (method !== 'POST') throw usageError(`--data: a ${method} request has no body`);
    body = await readData(ctx, opts.data);
  }
  const creates = createdSecret(method, path);
  if (creates === 'key') refuseQuietDiscard(globals.quiet, 'secret', 'drop -q');
  const ownToken = typeof body === 'object' && body !== null && typeof (body as { token?: unknown }).token === 'string';
  if (creates === 'webhook token' && !ownToken) refuseQuietDiscard(globals.quiet, 'webhook token', 'put your own "token" in --data, or drop -q');
  const { connect } = await import('../client.js');
  const { transport } = await connect(ctx, globals);
  try {
    const res = await transport.request({ method, path, body, signal: ctx.signal });
    if (globals.quiet) return;
    const [{ printJson }, { reveal }] = await Promise.all([import('../output/print.js'), import('../secrets.js')]);
    if (res.body === undefined) return;
    if (creates) for (const secret of newSecrets(res.body)) reveal(secret);
    printJson(ctx, res.body);
  } finally {
    await transport.close();
  }
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

async function readData(ctx: Context, spec: string): Promise<unknown> {
  const [{ readSource }, { stdinFor }] = await Promise.all([import('../input/sources.js'), import('../input/stdin.js')]);
  const stdin = stdinFor(ctx, 'the request body');
  const text = spec === '-' ? await readSource('-', '--data', ctx.cwd, stdin) : spec.startsWith('@') ? await readSource(spec.slice(1), '--data', ctx.cwd, stdin) : spec;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw usageError(`--data: not valid JSON (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`);
  }
}
