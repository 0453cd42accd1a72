import * as z from 'zod';
import { isEmailAddress, senderAddress } from './address.js';
import { zonedDateTimeProblem } from './datetime.js';
import { setOwn } from './own-field.js';
import { headerProblem, httpUrlProblem, nulProblem, URL_PROBLEMS } from './text.js';

export { isEmailAddress, senderAddress } from './address.js';

/** A string that may hold no NUL (every string sent); see text.ts. */
export const plainText = z.string().superRefine((v, ctx) => {
  const problem = nulProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** A string the API may put in a mail header: no control characters, checked first so the message says so. */
export const headerText = z.string().check(
  z.superRefine((v, ctx) => {
    const problem = headerProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, continue: false });
  }),
);

/** An http(s) URL with no spaces, control characters or credentials. */
export const httpUrl = z.string().superRefine((v, ctx) => {
  const problem = httpUrlProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', message: URL_PROBLEMS[problem], params: { problem } });
});

/**
 * A string enum that accepts values the spec does not list: servers add statuses and roles over
 * time (observed from the real service), and a reader must render them, not crash on them.
 */
export function tolerantEnum<const T extends readonly [string, ...string[]]>(known: T) {
  return z.union([z.enum(known), z.string()]);
}

export const emailAddress = headerText.refine(isEmailAddress, { message: 'must be an email address' });
export const senderField = headerText.refine((v) => senderAddress(v) !== undefined, {
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

const scalar = z.union([plainText, z.number(), z.boolean(), z.null()]);

const scalarMap = z.record(z.string(), scalar).superRefine((record, ctx) => {
  // Keys are names (header-safe); checked here, not by the key schema, whose issue zod words as "Invalid key in record".
  for (const key of Object.keys(record)) {
    const problem = headerProblem(key);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path: [key] });
  }
});

/**
 * Values of `contactProperties` and template `variables`: JSON scalars keyed by strings. Any string
 * is a key in JSON, "__proto__" too, but zod builds the parsed record by assignment, which would
 * drop that key (it sets the prototype instead): it is put back as the own field it was.
 */
export const scalarRecord = z.unknown().transform((input, ctx): z.infer<typeof scalarMap> => {
  const parsed = scalarMap.safeParse(input);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.issues.push({ ...issue, input: undefined } as never);
    return z.NEVER;
  }
  if (typeof input === 'object' && input !== null && Object.hasOwn(input, '__proto__')) {
    const value = scalar.safeParse((input as { __proto__: unknown }).__proto__);
    if (!value.success) {
      for (const issue of value.error.issues) ctx.issues.push({ ...issue, path: ['__proto__', ...issue.path], input: undefined } as never);
      return z.NEVER;
    }
    // In the order given, as zod's copy keeps it.
    const out: Record<string, z.infer<typeof scalar>> = {};
    for (const key of Object.keys(input)) setOwn(out, key, key === '__proto__' ? value.data : parsed.data[key]);
    return out;
  }
  return parsed.data;
});

/**
 * Template `variables` as the service takes them (the official SDK types them as any JSON values,
 * nested too): a JSON object, kept as it was sent. Only the sandbox reads them this way; mailroom
 * itself sends scalars (scalarRecord), as the spec promises.
 */
export const jsonRecord = z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), { message: 'must be an object' });
