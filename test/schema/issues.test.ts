import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { describeIssues } from '../../src/schema/issues.js';
import { validateEmail } from '../../src/input/send-flags.js';

const schema = z.strictObject({
  a: z.string().min(1),
  b: z.boolean(),
  c: z.enum(['X', 'Y']),
  d: z.array(z.string()).max(1),
  e: z.string().max(3),
  f: z.iso.datetime(),
  g: z.number().int().min(2),
  s: z.string(),
});

const words = (input: unknown, name?: (path: string) => string) => describeIssues((schema.safeParse(input).error as z.ZodError).issues, name);

describe('validation messages in mailroom\'s words', () => {
  it('name the field and say what is expected, never zod\'s phrasing', () => {
    const text = words({ a: '', b: 'yes', c: 'z', d: ['1', '2'], e: 'abcd', f: 'x', g: 1.5, s: ['x'], h: 1 });
    expect(text.split('; ')).toEqual([
      'a must not be empty',
      'b must be true or false, not a string',
      'c must be one of X, Y',
      'd must have at most 1 item',
      'e must be at most 3 characters',
      'f must be an ISO 8601 time such as 2026-11-23T10:00:00Z',
      'g must be a whole number',
      's must be a string, not a list',
      'unknown field h',
    ]);
    expect(text).not.toMatch(/Too small|Too big|Invalid input|Invalid option|expected .* received|>=|<=/);
  });

  it('a missing field is required', () => {
    expect(words({ b: true, c: 'X', d: [], e: '', f: '2026-11-23T10:00:00Z', g: 2, s: '' })).toBe('a is required');
  });

  it('a caller can name fields its own way (flags)', () => {
    expect(words({ a: '', b: true, c: 'X', d: [], e: '', f: '2026-11-23T10:00:00Z', g: 2, s: '' }, (p) => `--${p}`)).toBe('--a must not be empty');
  });

  it('send: "--subject must not be empty", "--to must be a string, not a list"', () => {
    expect(() => validateEmail({ from: 'a@example.com', to: 'b@example.com', subject: '', html: 'x' })).toThrow(/^invalid raw email: subject \(--subject\) must not be empty$/);
    expect(() => validateEmail({ from: 'a@example.com', to: ['b@example.com'], subject: 's', html: 'x' })).toThrow(/^invalid raw email: to \(--to\) must be a string, not a list$/);
  });
});
