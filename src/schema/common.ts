import { z } from 'zod';
import { isEmailAddress, senderAddress } from './address.js';
import { zonedDateTimeProblem } from './datetime.js';

export { isEmailAddress, senderAddress } from './address.js';

/**
 * A string enum that accepts values the spec does not list: servers add statuses and roles over
 * time (observed from the real service), and a reader must render them, not crash on them.
 */
export function tolerantEnum<const T extends readonly [string, ...string[]]>(known: T) {
  return z.union([z.enum(known), z.string()]);
}

export const emailAddress = z.string().refine(isEmailAddress, { message: 'must be an email address' });
export const senderField = z.string().refine((v) => senderAddress(v) !== undefined, {
  message: 'must be an email address or "Name <address>"',
});

/**
 * An optional field of an API answer, absent or null: the service's observed payloads write unset
 * properties as null (observed from the real service), so a reader takes both as "not set".
 */
export function unset<T extends z.ZodType>(schema: T) {
  return schema.nullish();
}

export const isoTimestamp = z.iso.datetime({ offset: true });

/** A request's date-time (`sendAt`): any ISO 8601 form with an explicit zone (see datetime.ts). */
export const zonedTimestamp = z.string().superRefine((value, ctx) => {
  const problem = zonedDateTimeProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** Values of `contactProperties` and template `variables`: JSON scalars keyed by strings. */
export const scalarRecord = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));
