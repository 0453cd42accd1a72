import undici from 'undici';
import type { Context, Globals } from '../context.js';
import { MailroomError, usageError } from '../errors.js';
import { SANDBOX_DEFAULT_URL } from '../config/sandbox-default.js';

// undici is CommonJS: its bundled chunk exposes only a default export.
const { request } = undici;

/** What a call to a sandbox needs from the command context. */
type Caller = Pick<Context, 'env' | 'signal'> & { globals: Globals };

/** A running sandbox's root URL: --base-url, else MAILROOM_BASE_URL, else the default; a trailing /v1 is dropped. */
export function sandboxRoot(ctx: Caller): string {
  const base = (ctx.globals.baseUrl ?? ctx.env.MAILROOM_BASE_URL ?? SANDBOX_DEFAULT_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
  try {
    new URL(base);
  } catch {
    throw usageError(`invalid base URL ${base}`);
  }
  return base;
}

/**
 * The workspace whose emails and deliveries the sandbox commands show: --workspace, else
 * MAILROOM_WORKSPACE, else none (the sandbox's first). `sandbox workspace create` makes others.
 */
export function sandboxWorkspace(ctx: Caller): string | undefined {
  const ws = ctx.globals.workspace ?? ctx.env.MAILROOM_WORKSPACE;
  if (ws === undefined || ws === '') return undefined;
  if (!/^wrk_[A-Za-z0-9_-]+$/.test(ws)) throw usageError(`workspace "${ws}" is not a workspace id: expected wrk_...`);
  return ws;
}

/** A 404 from a sandbox's list or wait asked for a workspace: that workspace is not there. */
export function unknownWorkspace(root: string, workspace: string | undefined): MailroomError {
  return new MailroomError('rejected', `no workspace ${workspace ?? '(the first)'} in the sandbox at ${root}`, {
    hints: ['workspaces last until the sandbox stops; make one with: mailroom sandbox workspace create'],
  });
}

/**
 * One call to a sandbox's inspection or control endpoints: nobody there or a 5xx exits 6, a refusal
 * (403: not addressed as localhost) 3, not a sandbox (no such route) 4; another 404 is answered.
 */
export async function sandboxCall(
  root: string,
  method: 'GET' | 'POST',
  path: string,
  ctx: Caller,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  let res;
  let text: string;
  try {
    res = await request(`${root}${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(ctx.globals.timeout ?? 10_000)]),
    });
    // Inside the try: an answer cut off mid-body is undici's error too, never to escape raw.
    text = await res.body.text();
  } catch (err) {
    const code = (err as { code?: string }).code ?? (err as Error).name;
    throw new MailroomError('connection', `cannot reach a sandbox at ${root}: ${code}`, { hints: ['start one with: mailroom sandbox'], cause: err });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (res.statusCode === 200 && parsed !== undefined) return { status: 200, body: parsed };
  const message = (parsed as { message?: unknown } | undefined)?.message;
  const detail = typeof message === 'string' ? `: ${message}` : '';
  if (res.statusCode === 404 && /^No route /.test(typeof message === 'string' ? message : 'No route')) {
    throw new MailroomError('rejected', `${root} is not a mailroom sandbox (no ${path.split('?')[0]})`);
  }
  if (res.statusCode === 404) return { status: 404, body: parsed };
  const kind = res.statusCode === 401 || res.statusCode === 403 ? 'authentication' : res.statusCode >= 500 ? 'server' : 'rejected';
  throw new MailroomError(kind, `the sandbox answered ${res.statusCode}${detail}`);
}

/**
 * Whether a mailroom sandbox answers at `root` and takes `apiKey`: its inspection route exists and
 * the key passes `GET /v1/api-keys/check` (so a port now held by anything else, or by a sandbox
 * with another key, is never taken for it). Short time limit: it is a probe.
 */
export async function sandboxTakesKey(root: string, apiKey: string, signal: AbortSignal): Promise<boolean> {
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await request(`${root}${path}`, { method: 'GET', headers, signal: AbortSignal.any([signal, AbortSignal.timeout(2_000)]) });
    await res.body.dump();
    return res.statusCode;
  };
  try {
    return (await get('/_sandbox/emails?limit=1')) === 200 && (await get('/v1/api-keys/check', { authorization: `Bearer ${apiKey}` })) === 200;
  } catch {
    return false;
  }
}
