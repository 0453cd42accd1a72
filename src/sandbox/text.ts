import { compile } from 'html-to-text';
import { Tokenizer } from 'htmlparser2';

/**
 * The choices React Email makes for its own plain-text rendering (`render(..., { plainText: true })`),
 * so that an email sent with only `html` gets the text its author would have got: images and the
 * hidden preview (`data-skip-in-text`) left out, a link's target after its text unless they are the
 * same, each table cell on its own line (emails lay out with tables; columns would be noise).
 */
const convert = compile({
  wordwrap: false,
  selectors: [
    { selector: 'img', format: 'skip' },
    { selector: '[data-skip-in-text=true]', format: 'skip' },
    { selector: 'a', options: { linkBrackets: false, hideLinkHrefIfSameAsText: true } },
    { selector: '[data-text-format="dataTable"]', format: 'dataTable' },
    { selector: 'td', format: 'block', options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
    { selector: 'th', format: 'block', options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
  ],
  // The formatter recurses per level: hostile nesting must not exhaust the stack.
  limits: { maxDepth: 200, ellipsis: '...' },
});

/**
 * Two limits keep one email's conversion under a second or so, where an unchecked one would hold
 * the sandbox (a single thread) for minutes; past either, only the HTML before the tag that crossed
 * it is converted, and the text ends with "...".
 * - htmlparser2 keeps its open elements with Array#unshift, so parsing costs the sum of the
 *   nesting depth at every tag: 100,000 unclosed `<div>`s (500 KB, under the body limit) take a
 *   minute. An ordinary 1 MB newsletter sums to a tenth of this budget.
 * - html-to-text spends tens of microseconds per element (selector matching). Real emails stay far
 *   below this many: Gmail clips a message past 102 KB.
 */
export const PARSE_BUDGET = 10_000_000;
export const MAX_ELEMENTS = 10_000;

/** HTML elements that never open (a subset of htmlparser2's list, so a miss only over-counts). */
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);

/**
 * Where to cut `html` to stay within the limits above, or undefined to keep it whole. Runs
 * htmlparser2's own tokenizer (linear; comments, attributes and script/style text read as the parser
 * reads them) with an upper bound of the parser's depth: every start tag of a non-void element opens
 * one level, an end tag closes one only when an element of its name was opened and not yet counted
 * closed (the parser may close fewer levels at an end tag, never more, over the whole document).
 */
export function parseCut(html: string, budget = PARSE_BUDGET, maxElements = MAX_ELEMENTS): number | undefined {
  const open = new Map<string, number>();
  let depth = 0;
  let cost = 0;
  let elements = 0;
  let cut: number | undefined;
  const noop = () => undefined;
  const spend = (at: number) => {
    cost += depth + 1;
    if ((cost > budget || elements > maxElements) && cut === undefined) {
      cut = at;
      tokenizer.pause();
    }
  };
  const tokenizer = new Tokenizer(
    { xmlMode: false, decodeEntities: false },
    {
      onopentagname(start, end) {
        elements += 1;
        spend(start - 1);
        const name = html.slice(start, end).toLowerCase();
        if (VOID.has(name)) return;
        open.set(name, (open.get(name) ?? 0) + 1);
        depth += 1;
      },
      onclosetag(start, end) {
        spend(start - 2);
        const name = html.slice(start, end).toLowerCase();
        const n = open.get(name) ?? 0;
        if (n === 0) return;
        open.set(name, n - 1);
        depth -= 1;
      },
      onattribdata: noop,
      onattribentity: noop,
      onattribend: noop,
      onattribname: noop,
      oncdata: noop,
      oncomment: noop,
      ondeclaration: noop,
      onend: noop,
      onopentagend: noop,
      onprocessinginstruction: noop,
      onselfclosingtag: noop,
      ontext: noop,
      ontextentity: noop,
    },
  );
  tokenizer.write(html);
  if (cut === undefined) tokenizer.end();
  return cut;
}

/** The plain-text part generated when a sender gives only `html` (html-to-text). */
export function textFromHtml(html: string): string {
  const cut = parseCut(html);
  if (cut === undefined) return convert(html);
  const text = convert(html.slice(0, cut));
  return text.endsWith('...') ? text : `${text}\n...`;
}

/**
 * An email's `text`, generated from its `html` when first read and kept, when the sender gave
 * none: html-to-text was a third of the sandbox's CPU per accepted email, and most caught emails
 * are never read. Every path that shows an email (the inspection API, the inbox) reads it through
 * here; until then `text` is undefined, in its place among the keys, and `--data` saves the email
 * without it.
 */
export function withText(email: { html: string; text: string | undefined }): string {
  return (email.text ??= textFromHtml(email.html));
}
