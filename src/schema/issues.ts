import type * as z from 'zod';
import { count } from '../plural.js';

/** Zod's type names in mailroom's words. */
const TYPES: Record<string, string> = {
  string: 'a string',
  boolean: 'true or false',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  object: 'an object',
  array: 'a list',
  null: 'null',
  date: 'a date',
};
const FORMATS: Record<string, string> = {
  datetime: 'an ISO 8601 time such as 2026-11-23T10:00:00Z',
  email: 'an email address',
  url: 'a URL',
  uuid: 'a UUID',
};

function unit(origin: string | undefined, n: number | bigint): string {
  if (origin === 'string') return count(Number(n), 'character');
  if (origin === 'array' || origin === 'set') return count(Number(n), 'item');
  return String(n);
}

/** What is wrong with one field, as a sentence's predicate: "must not be empty", "is required". */
export function issueText(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type': {
      const received = /received (\w+)$/.exec(issue.message)?.[1];
      if (received === 'undefined') return 'is required';
      const expected = TYPES[issue.expected] ?? issue.expected;
      const got = received && received !== issue.expected && !(issue.expected === 'int' && received === 'number') ? `, not ${TYPES[received] ?? received}` : '';
      return `must be ${expected}${got}`;
    }
    case 'too_small': {
      const n = issue.minimum;
      if ((issue.origin === 'string' || issue.origin === 'array') && Number(n) === 1 && issue.inclusive !== false) return 'must not be empty';
      return issue.origin === 'array' || issue.origin === 'set' ? `must have at least ${unit(issue.origin, n)}` : `must be at least ${unit(issue.origin, n)}`;
    }
    case 'too_big': {
      const n = issue.maximum;
      return issue.origin === 'array' || issue.origin === 'set' ? `must have at most ${unit(issue.origin, n)}` : `must be at most ${unit(issue.origin, n)}`;
    }
    case 'invalid_value':
      return `must be one of ${issue.values.map(String).join(', ')}`;
    case 'invalid_format':
      return `must be ${FORMATS[issue.format] ?? `a valid ${issue.format}`}`;
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'invalid_union':
      return 'is not valid here';
    default:
      // Our own refinements already speak in mailroom's words ("must be an email address").
      return issue.message;
  }
}

/**
 * Every issue as `<field> <what is wrong>`, joined by "; ": the one place validation problems are put
 * into words. `name` turns a dotted path into the name the user knows (a flag, a config key).
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[], name: (path: string) => string = (p) => p): string {
  return issues
    .map((i) => {
      const path = i.path.map(String).join('.');
      if (i.code === 'unrecognized_keys') return `unknown field${i.keys.length > 1 ? 's' : ''} ${i.keys.join(', ')}${path ? ` in ${name(path)}` : ''}`;
      const text = issueText(i);
      return path ? `${name(path)} ${text}` : text;
    })
    .join('; ');
}
