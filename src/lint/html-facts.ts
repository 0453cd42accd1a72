import { Parser } from 'htmlparser2';

/** Where in the HTML something is: 1-based line and column, as editors and SARIF count them. */
export interface Position {
  line: number;
  column: number;
}

export interface LinkFact extends Position {
  tag: string;
  /** The attribute as written (entities decoded by the parser); undefined when the tag has none. */
  href: string | undefined;
  text: string;
}

export interface ImageFact extends Position {
  src: string;
  alt: string | undefined;
  width: boolean;
  height: boolean;
}

export interface DataUriFact extends Position {
  bytes: number;
  mime: string;
}

/** What the checks need from one HTML body, gathered in one pass of a real HTML parser. */
export interface HtmlFacts {
  bytes: number;
  title: string | undefined;
  /** The text of a hidden element at the start of the body (the inbox preview), if any. */
  preheader: string | undefined;
  /** Visible text, for comparing with the plain-text part. */
  text: string;
  links: LinkFact[];
  images: ImageFact[];
  dataUris: DataUriFact[];
}

const HIDDEN_STYLE = /display\s*:\s*none|max-height\s*:\s*0|mso-hide\s*:\s*all|visibility\s*:\s*hidden|opacity\s*:\s*0(?![.\d])/i;
const PREHEADER_CLASS = /(^|[\s_-])(preheader|preview(-?text)?)($|[\s_-])/i;
const DATA_URI = /data:([\w.+-]+\/[\w.+-]+)?[^,"'\s)]*,([^"'\s)]*)/gi;
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const NO_TEXT = new Set(['head', 'style', 'script', 'title', 'noscript', 'template']);

/** 1-based line and column of each offset, by binary search over the line starts. */
export function positionsOf(source: string): (offset: number) => Position {
  const starts = [0];
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (starts[lo] as number) + 1 };
  };
}

export function htmlFacts(html: string): HtmlFacts {
  const at = positionsOf(html);
  const facts: HtmlFacts = { bytes: Buffer.byteLength(html), title: undefined, preheader: undefined, text: '', links: [], images: [], dataUris: [] };
  const stack: Array<{ name: string; hidden: boolean; link?: LinkFact; preheader?: boolean }> = [];
  const textParts: string[] = [];
  let title: string[] | undefined;
  let inBody = false;
  let seenVisibleText = false;
  let preheaderParts: string[] | undefined;

  for (const m of html.matchAll(DATA_URI)) {
    const payload = m[2] ?? '';
    facts.dataUris.push({ ...at(m.index), mime: m[1] ?? 'text/plain', bytes: /;base64/i.test(m[0]) ? Math.floor((payload.length * 3) / 4) : payload.length });
  }

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const pos = at(parser.startIndex);
        const parentHidden = stack.at(-1)?.hidden ?? false;
        const style = attribs.style ?? '';
        const hidden = parentHidden || HIDDEN_STYLE.test(style) || 'hidden' in attribs;
        const frame: (typeof stack)[number] = { name, hidden };
        if (name === 'body') inBody = true;
        if (name === 'title' && title === undefined) title = [];
        if ((name === 'a' || name === 'area') && !('name' in attribs && !('href' in attribs))) {
          const link: LinkFact = { ...pos, tag: name, href: attribs.href, text: '' };
          facts.links.push(link);
          frame.link = link;
        }
        if (name === 'img') facts.images.push({ ...pos, src: attribs.src ?? '', alt: attribs.alt, width: hasSize(attribs.width, style, 'width'), height: hasSize(attribs.height, style, 'height') });
        // The preview text: a hidden element (or one named preheader) before any visible text.
        const named = PREHEADER_CLASS.test(`${attribs.class ?? ''} ${attribs.id ?? ''}`) || attribs['data-skip-in-text'] === 'true';
        if (preheaderParts === undefined && facts.preheader === undefined && !seenVisibleText && (inBody || !stack.some((f) => f.name === 'head')) && !NO_TEXT.has(name) && (named || (hidden && !parentHidden))) {
          preheaderParts = [];
          frame.preheader = true;
        }
        if (!VOID.has(name)) stack.push(frame);
      },
      ontext(data) {
        if (title !== undefined && stack.at(-1)?.name === 'title') title.push(data);
        if (stack.some((f) => NO_TEXT.has(f.name))) return;
        const link = [...stack].reverse().find((f) => f.link)?.link;
        if (link) link.text += data;
        if (preheaderParts !== undefined) preheaderParts.push(data);
        else if (!(stack.at(-1)?.hidden ?? false)) {
          textParts.push(data);
          if (data.trim() !== '') seenVisibleText = true;
        }
      },
      onclosetag(name) {
        if (VOID.has(name)) return;
        const i = stack.map((f) => f.name).lastIndexOf(name);
        if (i === -1) return;
        for (const frame of stack.splice(i)) {
          if (frame.preheader && preheaderParts !== undefined) {
            const text = collapse(preheaderParts.join(' '));
            preheaderParts = undefined;
            if (text !== '') facts.preheader = text;
          }
        }
        if (name === 'title' && title !== undefined && facts.title === undefined) facts.title = collapse(title.join(''));
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true },
  );
  parser.write(html);
  parser.end();
  if (facts.title === undefined && title !== undefined) facts.title = collapse(title.join(''));
  for (const link of facts.links) link.text = collapse(link.text);
  facts.text = collapse(textParts.join(' '));
  return facts;
}

function hasSize(attr: string | undefined, style: string, prop: 'width' | 'height'): boolean {
  if (attr !== undefined && /\d/.test(attr)) return true;
  return new RegExp(`(^|[;\\s])${prop}\\s*:\\s*[\\d.]+`, 'i').test(style);
}

// Whitespace and the invisible fillers preheaders are padded with (zero-width spaces, U+034F).
const collapse = (s: string): string => s.replace(/(?:\s|\u00a0|\u200b|\u200c|\u200d|\u034f|\ufeff)+/g, ' ').trim();
