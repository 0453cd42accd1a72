import { DEFAULT_TIMEOUT_MS } from '../../config/settings.js';
import { ConnectionError, TimeoutError } from '../../transport/http-errors.js';

/**
 * The CLI's words for the transport's errors: what to change on mailroom's command line when the API
 * cannot be reached or is too slow. The transport's errors (src/transport/http-errors.ts) carry no CLI
 * wording, since the library hands them to other programs; report() puts these first, where the
 * errors' own hints followed them before.
 */
export function transportHints(err: unknown): string[] {
  if (err instanceof ConnectionError) return ['check --base-url / MAILROOM_BASE_URL and your network or proxy (HTTPS_PROXY, NO_PROXY)'];
  if (err instanceof TimeoutError) return ['raise --timeout <ms> if the API is slow'];
  return [];
}

/**
 * The --timeout a command printed for a retry carries after `err`: when a timeout ran out, twice
 * that one and at least the default, so the command does what the hint above it says (raise it)
 * rather than repeat what failed. Undefined for any other error: keep what was given.
 */
export function raisedTimeout(err: unknown, timeoutMs: number): string | undefined {
  if (!(err instanceof TimeoutError)) return undefined;
  return String(Math.max(timeoutMs * 2, DEFAULT_TIMEOUT_MS));
}
