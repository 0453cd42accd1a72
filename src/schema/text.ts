/**
 * What a string may hold, without zod (the batch quick check uses these too). A value the API would
 * put in a mail header (subject, names, addresses, reply-to, ids) must hold no control character: a
 * CR/LF could add a header, a NUL cut one, and a mail or JSON reader may break a line at NEL (U+0085)
 * or at the line and paragraph separators (U+2028, U+2029). So: no C0 or C1 control, no DEL, no
 * Unicode line or paragraph separator. No string at all may hold a NUL.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

const codePoint = (ch: string) => `U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

export function isHeaderSafe(value: string): boolean {
  return !CONTROL.test(value);
}

export function hasNoNul(value: string): boolean {
  return !value.includes('\0');
}

/** Why `value` cannot go in a header, or undefined. */
export function headerProblem(value: string): string | undefined {
  const m = CONTROL.exec(value);
  return m ? `must not contain control characters (${codePoint(m[0])} at index ${m.index})` : undefined;
}

export function nulProblem(value: string): string | undefined {
  const i = value.indexOf('\0');
  return i === -1 ? undefined : `must not contain a NUL character (U+0000 at index ${i})`;
}

export type UrlProblem = 'characters' | 'not-a-url' | 'scheme' | 'credentials';

export const URL_PROBLEMS: Record<UrlProblem, string> = {
  characters: 'must not contain spaces or control characters',
  'not-a-url': 'is not a URL',
  scheme: 'is not an http(s) URL',
  credentials: 'must not carry credentials (user:password@)',
};

/**
 * What keeps `value` from being an http(s) URL mailroom may send to or register, or undefined: a
 * URL parser silently drops tabs and newlines and trims spaces, so those are refused before
 * parsing, and credentials never travel in a URL.
 */
export function httpUrlProblem(value: string): UrlProblem | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(value)) return 'characters';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not-a-url';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'scheme';
  if (url.username || url.password) return 'credentials';
  return undefined;
}
