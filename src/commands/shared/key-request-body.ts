import type * as z from 'zod';
import { usageError } from '../../errors.js';
import { parseChoice } from '../../input/choice.js';
import { describeIssues, KEY_ROLES } from '../../schema/index.js';

/** A key field by the flag that sets it, in validation messages ("name (--name) must not be empty"). */
const keyFlag = (path: string): string => (path === 'displayName' ? 'name (--name)' : path === 'role' ? 'role (--role)' : path);

/**
 * The body of keys create / update from their flags, or one usage line naming the flag at fault.
 * `--role` is taken in any case and sent in the API's spelling (`viewer` → `VIEWER`).
 */
export function keyRequestBody<S extends z.ZodType>(schema: S, input: { displayName: string | undefined; role: string | undefined }, what: 'key' | 'update'): z.output<S> {
  const role = input.role === undefined ? undefined : parseChoice('--role', input.role, KEY_ROLES);
  const body = schema.safeParse({ ...input, role });
  if (body.success) return body.data;
  throw usageError(`invalid ${what}: ${describeIssues(body.error.issues, keyFlag)}`);
}
