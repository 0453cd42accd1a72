import type * as z from 'zod';
import { describeIssues } from '../schema/index.js';
import { ApiError } from '../transport/http-errors.js';
import { UnexpectedResponseError } from './call-errors.js';

export { UnexpectedResponseError } from './call-errors.js';
import type { ApiResponse, RequestOptions, Transport } from '../transport/index.js';

/** Per-call knobs every endpoint passes through to the transport. */
export interface CallOptions {
  signal?: AbortSignal;
  onRetry?: RequestOptions['onRetry'];
  maxRetries?: number;
  timeoutMs?: number;
}

type PassThrough = Pick<RequestOptions, 'signal' | 'onRetry' | 'maxRetries' | 'timeoutMs'>;

export function callOptions(opts: CallOptions): PassThrough {
  const out: PassThrough = {};
  if (opts.signal) out.signal = opts.signal;
  if (opts.onRetry) out.onRetry = opts.onRetry;
  if (opts.maxRetries !== undefined) out.maxRetries = opts.maxRetries;
  if (opts.timeoutMs !== undefined) out.timeoutMs = opts.timeoutMs;
  return out;
}

/**
 * Checks a 2xx body against its wire schema. A body that does not match is the server breaking the
 * contract, not the user's fault: exit 1 with the request id, so support can find it.
 */
export function parseBody<S extends z.ZodType>(schema: S, res: ApiResponse, what: string): z.infer<S> {
  const parsed = schema.safeParse(res.body);
  if (parsed.success) return parsed.data;
  // The transport hands on a body that does not parse as JSON as its text (transport/http.ts).
  const why = typeof res.body === 'string' ? 'its body is not JSON' : describeIssues(parsed.error.issues);
  throw new UnexpectedResponseError(`unexpected ${what} response from the API: ${why}`, res);
}

/**
 * DELETE, retried like any idempotent request. When an attempt fails without an answer (connection
 * lost, timeout, 5xx) and a retry then finds the resource gone (404), the failed attempt most likely
 * deleted it: that is success, `'gone'`, without the object its lost answer held.
 */
export async function deleteRequest(t: Transport, path: string, opts: CallOptions): Promise<ApiResponse | 'gone'> {
  let retried = false;
  const onRetry: RequestOptions['onRetry'] = (info) => {
    retried = true;
    opts.onRetry?.(info);
  };
  try {
    return await t.request({ method: 'DELETE', path, ...callOptions({ ...opts, onRetry }) });
  } catch (err) {
    if (retried && err instanceof ApiError && err.status === 404) return 'gone';
    throw err;
  }
}
