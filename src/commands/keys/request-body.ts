import type { z } from 'zod';
import { usageError } from '../../errors.js';
import { describeIssues } from '../../schema/index.js';

/** A key field by the flag that sets it, in validation messages ("name (--name) must not be empty"). */
const keyFlag = (path: string): string => (path === 'displayName' ? 'name (--name)' : path === 'role' ? 'role (--role)' : path);

/** The body of keys create / update from their flags, or one usage line naming the flag at fault. */
export function keyRequestBody<S extends z.ZodType>(schema: S, input: { displayName: string | undefined; role: string | undefined }, what: 'key' | 'update'): z.output<S> {
  const body = schema.safeParse(input);
  if (body.success) return body.data;
  throw usageError(`invalid ${what}: ${describeIssues(body.error.issues, keyFlag).replace(/role \(--role\) .*/, 'role (--role) must be one of API_USER, EDITOR, VIEWER')}`);
}
