import type * as z from 'zod';
import { describeIssues } from '../schema/index.js';
import { HttpError } from './http-errors.js';

/** Parses a request body with a shared wire schema; a mismatch is a 400 naming what is wrong. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'Invalid request: the body must be a JSON object');
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new HttpError(400, `Invalid request: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}
