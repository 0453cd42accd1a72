import type { Setting, Settings } from '../config/settings.js';
import { SANDBOX_DEFAULT_URL } from '../config/sandbox-default.js';
import { MailroomError } from '../errors.js';
import { ApiError } from './http-errors.js';
import type { Transport } from './index.js';

/**
 * A running sandbox's own endpoints (inspection and control): where it is, and one call to it over
 * the command's transport to it (src/commands/context.ts, `sandboxAdmin()`).
 */
export interface SandboxAdmin {
  root: string;
  /**
   * `timeoutMs`: this call's own limit (a long poll), instead of the transport's. `answer`: refusals
   * with these statuses are answered (status and body) for the caller to word, not thrown.
   */
  call(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, opts?: { timeoutMs?: number; answer?: readonly number[] }): Promise<{ status: number; body: unknown }>;
}

/**
 * Whether a setting points the sandbox commands somewhere: given on the command line, in the
 * environment, by --sandbox or by a profile named on purpose (--profile, MAILROOM_PROFILE). The
 * default profile's host and workspace are the ones `login` saved for the API, not a sandbox's.
 */
export function meantForSandbox(setting: Setting<string> | undefined, profile: Settings['profile']): setting is Setting<string> {
  if (!setting || setting.source === 'default') return false;
  return setting.source !== 'profile' || profile.source !== 'default';
}

/** A running sandbox's root URL: the base URL meant for it, else the local sandbox's default; a trailing /v1 is dropped. */
export function sandboxRoot(settings: Pick<Settings, 'baseUrl' | 'profile'>): string {
  const base = meantForSandbox(settings.baseUrl, settings.profile) ? settings.baseUrl.value : SANDBOX_DEFAULT_URL;
  return base.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/**
 * The sandbox at `root` over `transport` (no key, no retries): nobody there or a 5xx exits 6, a
 * refusal (403: not addressed as localhost) 3, not a sandbox (no such route) 4; another 404 is
 * answered.
 */
export function sandboxAdminOver(transport: Transport, root: string, signal: AbortSignal): SandboxAdmin {
  return {
    root,
    async call(method, path, body, { answer = [], ...opts } = {}) {
      let res;
      try {
        res = await transport.request({ method, path, ...(body === undefined ? {} : { body }), ...opts, signal, maxRetries: 0 });
      } catch (err) {
        if (err instanceof ApiError && answer.includes(err.status)) return { status: err.status, body: err.body };
        if (err instanceof ApiError) return refusal(root, path, err.status, err.body);
        const code = (err as { code?: string }).code ?? (err as Error).name;
        throw new MailroomError('connection', `cannot reach a sandbox at ${root}: ${code}`, { hints: ['start one with: mailroom sandbox'], cause: err });
      }
      // Its answers are JSON: anything else is not a sandbox's.
      if (res.status === 200 && res.body !== undefined && typeof res.body !== 'string') return { status: 200, body: res.body };
      return refusal(root, path, res.status, typeof res.body === 'string' ? undefined : res.body);
    },
  };
}

function refusal(root: string, path: string, status: number, body: unknown): { status: 404; body: unknown } {
  const message = (body as { message?: unknown } | undefined)?.message;
  const detail = typeof message === 'string' ? `: ${message}` : '';
  if (status === 404 && /^No route /.test(typeof message === 'string' ? message : 'No route')) {
    throw new MailroomError('rejected', `${root} is not a mailroom sandbox (no ${path.split('?')[0]})`);
  }
  if (status === 404) return { status: 404, body };
  const kind = status === 401 || status === 403 ? 'authentication' : status >= 500 ? 'server' : 'rejected';
  throw new MailroomError(kind, `the sandbox answered ${status}${detail}`);
}

/**
 * Whether a mailroom sandbox answers over `transport` (authenticated with the key to try) and takes
 * that key: its inspection route exists and `GET /v1/api-keys/check` passes (so a port now held by
 * anything else, or by a sandbox with another key, is never taken for it). Short time limit, no
 * retries: it is a probe.
 */
export async function sandboxTakesKey(transport: Transport, signal: AbortSignal): Promise<boolean> {
  const status = (path: string) =>
    transport.request({ method: 'GET', path, signal, timeoutMs: 2_000, maxRetries: 0 }).then(
      (res) => res.status,
      () => 0,
    );
  return (await status('/_sandbox/emails?limit=1')) === 200 && (await status('/v1/api-keys/check')) === 200;
}
