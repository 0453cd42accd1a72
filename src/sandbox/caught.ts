import { Parser } from 'htmlparser2';
import type { CaughtEmail, EmailLink, SandboxEmail } from './public-types.js';

/**
 * What a test asks of an email it caught (docs/sandbox-in-your-tests.md, "Reading a caught email"):
 * its links, the one-time codes and tokens in it, its headers. Worked out in the test's process from
 * the stored email, each when first asked for.
 */

/** Elements whose text is never shown: a code in a stylesheet or a script is not one a reader sees. */
const HIDDEN = new Set(['style', 'script', 'head', 'title', 'template']);

interface HtmlParts {
  links: EmailLink[];
  /** The visible text, blocks separated by newlines. */
  text: string;
}

const BLOCK = /^(?:p|div|br|tr|td|th|li|h[1-6]|table|section|article|header|footer|blockquote|pre|hr)$/;

function parseHtml(html: string): HtmlParts {
  const links: EmailLink[] = [];
  const text: string[] = [];
  let hidden = 0;
  let open: { href: string; text: string[]; alt: string[] } | undefined;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (HIDDEN.has(name)) hidden += 1;
        if (BLOCK.test(name)) text.push('\n');
        if ((name === 'a' || name === 'area') && attrs.href !== undefined) {
          if (name === 'area') links.push({ href: attrs.href.trim(), text: (attrs.alt ?? '').trim() });
          else open = { href: attrs.href.trim(), text: [], alt: [] };
        }
        if (name === 'img' && open && attrs.alt) open.alt.push(attrs.alt);
      },
      ontext(data) {
        if (hidden > 0) return;
        text.push(data);
        open?.text.push(data);
      },
      onclosetag(name) {
        if (HIDDEN.has(name)) hidden = Math.max(0, hidden - 1);
        if (BLOCK.test(name)) text.push('\n');
        if (name === 'a' && open) {
          const words = squeeze(open.text.join(''));
          links.push({ href: open.href, text: words === '' ? squeeze(open.alt.join(' ')) : words });
          open = undefined;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  return { links, text: text.join('') };
}

function squeeze(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** Query parameters whose values are tokens: a magic link's `?token=`, a confirmation's `?code=`. */
export const TOKEN_PARAMS = /^(?:token|code|otp|key|auth|verify|verification|verification_?code|confirm|confirmation|confirmation_?token|reset|reset_?token|magic|nonce|access_?token|t)$/i;

/** A whole word of 4 to 8 digits, not part of a decimal, a date, a time, a price or a longer number. */
const DIGITS = /(?<![\d.,:/\\$€£¥#-])\b\d{4,8}\b(?![.,:/\\]?\d)(?!-\d)/g;
/** A whole word of 6 to 12 capital letters and digits holding both (`A7K9QZ`). */
const MIXED = /\b(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{6,12}\b/g;
const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"']+/gi;
/** Four digits that read as a year (a copyright line, a date) are not a code. */
const YEAR = /^(?:19|20)\d\d$/;

function codesInText(text: string, into: string[]): void {
  const words = text.replace(URL_IN_TEXT, ' ');
  const found: [number, string][] = [];
  for (const m of words.matchAll(DIGITS)) if (!YEAR.test(m[0])) found.push([m.index, m[0]]);
  for (const m of words.matchAll(MIXED)) found.push([m.index, m[0]]);
  found.sort((a, b) => a[0] - b[0]);
  for (const [, code] of found) into.push(code);
}

function tokensInUrl(href: string, into: string[]): void {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return;
  }
  for (const [name, value] of url.searchParams) if (TOKEN_PARAMS.test(name) && value !== '') into.push(value);
  // A fragment such as #token=... (single-page apps read it there).
  const fragment = new URLSearchParams(url.hash.replace(/^#/, ''));
  for (const [name, value] of fragment) if (TOKEN_PARAMS.test(name) && value !== '') into.push(value);
}

/** The email with its helpers; they do not show in JSON, `toEqual` or a spread copy. */
export function caught(email: SandboxEmail): CaughtEmail {
  let parts: HtmlParts | undefined;
  const html = () => (parts ??= parseHtml(email.html));
  const helpers: Pick<CaughtEmail, 'links' | 'codes' | 'headers'> = {
    links: () => html().links.map((link) => ({ ...link })),
    codes(pattern?: RegExp) {
      const texts = [email.text, html().text];
      const out: string[] = [];
      if (pattern) {
        const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
        for (const text of texts) for (const m of text.matchAll(global)) out.push(m[1] ?? m[0]);
      } else {
        for (const text of texts) codesInText(text, out);
        for (const link of html().links) tokensInUrl(link.href, out);
        for (const m of email.text.matchAll(URL_IN_TEXT)) tokensInUrl(m[0], out);
      }
      return [...new Set(out)];
    },
    get headers() {
      return headersOf(email);
    },
  };
  Object.defineProperties(email, Object.getOwnPropertyDescriptors(helpers));
  for (const name of ['links', 'codes', 'headers']) Object.defineProperty(email, name, { enumerable: false });
  return email as CaughtEmail;
}

/** The headers the email would travel with, lower-case names, from what was sent. */
function headersOf(email: SandboxEmail): Record<string, string> {
  const headers: Record<string, string> = {};
  if (email.from !== undefined) headers.from = email.from;
  headers.to = email.to;
  if (email.subject !== undefined) headers.subject = email.subject;
  const replyTo = email.replyTo;
  if (replyTo !== undefined) headers['reply-to'] = Array.isArray(replyTo) ? replyTo.join(', ') : replyTo;
  headers['message-id'] = `<${email.messageId}>`;
  headers.date = new Date(email.sendAt ?? email.createdAt).toUTCString();
  return headers;
}
