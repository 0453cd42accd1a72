import { htmlFacts, positionsOf, type HtmlFacts } from './html-facts.js';
import { finding, type Finding } from './rules.js';

/** One email as the checks see it: its HTML and the fields sent with it. */
export interface EmailUnderCheck {
  html: string;
  text?: string;
  subject?: string;
  previewText?: string;
  /** Other string fields sent with it (to, from, sendAt, ...), checked for placeholders. */
  fields?: Record<string, string>;
}

/** Gmail clips a message whose HTML is over 102 KB. */
export const CLIP_BYTES = 102 * 1024;
const NEAR_CLIP_BYTES = 90 * 1024;

/** `{{name}}`, `{{{name}}}`, `{% tag %}` and Mailchimp's `*|NAME|*`: what a template engine would have replaced. */
const PLACEHOLDER = /\{\{\{?[^{}\n]{0,80}\}\}\}?|\{%[^%\n]{0,200}%\}|\*\|[A-Z0-9_:]{1,60}\|\*/g;
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const UNSAFE = new Set(['javascript', 'vbscript', 'data']);

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

/** Runs every local check (no network) on one email; the facts come back too, for the link fetcher. */
export function checkEmail(email: EmailUnderCheck): { findings: Finding[]; facts: HtmlFacts } {
  const facts = htmlFacts(email.html);
  const findings: Finding[] = [];
  const add = (f: Finding) => findings.push(f);

  if (facts.bytes > CLIP_BYTES) add(finding('size-clipped', `the HTML is ${kb(facts.bytes)}: Gmail clips it at 102 KB`));
  else if (facts.bytes > NEAR_CLIP_BYTES) add(finding('size-near-clip', `the HTML is ${kb(facts.bytes)}, ${kb(CLIP_BYTES - facts.bytes)} under Gmail's 102 KB clip`));
  for (const d of facts.dataUris) add(finding('size-data-uri', `inline data: URI (${d.mime}, ${kb(d.bytes)})`, d));

  for (const link of facts.links) {
    if (link.href === undefined) continue;
    const href = link.href.trim();
    const label = link.text ? ` ("${short(link.text)}")` : '';
    if (href === '' || href === '#') {
      add(finding('link-empty', `link${label} has ${href === '' ? 'an empty href' : 'href="#"'}`, link));
      continue;
    }
    if (hasPlaceholder(href)) continue;
    // Browsers drop tabs and newlines inside a scheme ("java\nscript:"), so the check does too.
    const scheme = SCHEME.exec(href.replace(/[\t\n\r]/g, ''))?.[1]?.toLowerCase();
    if (scheme !== undefined && UNSAFE.has(scheme)) add(finding('link-unsafe-scheme', `${scheme}: link${label}`, link));
    else if (scheme === 'http') add(finding('link-http', `http:// link${label}: ${short(href)}`, link));
    else if (scheme === undefined && !href.startsWith('#')) add(finding('link-relative', `link${label} to "${short(href)}" has no scheme and host`, link));
  }

  for (const img of facts.images) {
    const src = img.src.trim();
    const name = src === '' ? 'an image' : `image ${short(src)}`;
    if (img.alt === undefined) add(finding('image-no-alt', `${name} has no alt attribute`, img));
    if (!img.width || !img.height) add(finding('image-no-size', `${name} has no ${!img.width && !img.height ? 'width or height' : img.width ? 'height' : 'width'}`, img));
    if (hasPlaceholder(src)) continue;
    const scheme = SCHEME.exec(src)?.[1]?.toLowerCase();
    if (src === '') add(finding('image-relative', 'an image has no src', img));
    else if (scheme === 'http') add(finding('image-http', `image over plain http://: ${short(src)}`, img));
    else if (scheme === undefined) add(finding('image-relative', `image src "${short(src)}" has no scheme and host`, img));
  }

  if (email.text === undefined) add(finding('text-missing', 'no plain-text part: the service will generate one from the HTML'));
  else {
    const differs = compareText(facts.text, email.text);
    if (differs) add(finding('text-mismatch', differs));
  }

  if (!facts.title) add(finding('head-no-title', facts.title === '' ? 'the <title> is empty' : 'the HTML has no <title>'));
  if (facts.preheader === undefined && !email.previewText) add(finding('head-no-preheader', 'no preheader in the HTML and no previewText: the inbox preview shows the first text of the body'));

  findings.push(...placeholders(email));
  return { findings, facts };
}

function hasPlaceholder(s: string): boolean {
  PLACEHOLDER.lastIndex = 0;
  return PLACEHOLDER.test(s);
}

/** One finding per distinct placeholder and place (HTML, text, a field), at its first occurrence. */
function placeholders(email: EmailUnderCheck): Finding[] {
  const found: Finding[] = [];
  const scan = (value: string | undefined, where: string, positions?: (offset: number) => { line: number; column: number }) => found.push(...placeholderFindings(value, where, positions));
  scan(email.subject, 'the subject');
  scan(email.previewText, 'previewText');
  for (const [name, value] of Object.entries(email.fields ?? {})) scan(value, name);
  scan(email.html, 'the HTML', positionsOf(email.html));
  scan(email.text, 'the text part');
  return found;
}

/** The unresolved placeholders of one value (`where` names it in the message), one finding per distinct one. */
export function placeholderFindings(value: string | undefined, where: string, positions?: (offset: number) => { line: number; column: number }): Finding[] {
  if (value === undefined) return [];
  const seen = new Map<string, { count: number; first: number }>();
  for (const m of value.matchAll(PLACEHOLDER)) {
    const s = seen.get(m[0]);
    if (s) s.count++;
    else seen.set(m[0], { count: 1, first: m.index });
  }
  return [...seen].map(([text, { count, first }]) =>
    finding('placeholder-unresolved', `${where} holds ${text} unresolved${count > 1 ? ` (${count} times)` : ''}`, positions ? positions(first) : {}),
  );
}

const words = (s: string): Set<string> => new Set(s.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []);

/** Why the text part differs widely from the HTML's visible text, or undefined when it does not. */
export function compareText(htmlText: string, text: string): string | undefined {
  const h = words(htmlText);
  const t = words(text);
  if (t.size === 0) return h.size === 0 ? undefined : 'the plain-text part is empty';
  if (h.size < 5) return undefined;
  let shared = 0;
  for (const w of h) if (t.has(w)) shared++;
  const ofHtml = shared / h.size;
  const ofText = shared / t.size;
  if (ofHtml >= 0.5 && ofText >= 0.5) return undefined;
  const pct = (n: number) => `${Math.round(n * 100)}%`;
  return `the plain-text part shares ${pct(ofHtml)} of the HTML's words, and ${pct(ofText)} of its own words are in the HTML`;
}

function short(s: string, max = 60): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
