import type { z } from 'zod';
import { CliError } from '../errors.js';
import { describeIssues } from '../schema/index.js';
import type { ApiResponse } from '../transport/index.js';

/**
 * Checks a 2xx body against its wire schema. A body that does not match is the server breaking the
 * contract, not the user's fault: exit 1 with the request id, so support can find it.
 */
export function parseBody<S extends z.ZodType>(schema: S, res: ApiResponse, what: string): z.infer<S> {
  const parsed = schema.safeParse(res.body);
  if (parsed.success) return parsed.data;
  throw new CliError('unexpected', `unexpected ${what} response from the API: ${describeIssues(parsed.error.issues)}`, {
    requestId: res.requestId,
  });
}
