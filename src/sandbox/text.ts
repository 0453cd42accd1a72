const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** Elements whose content is never text. */
const INVISIBLE = new Set(['script', 'style', 'head', 'title', 'template']);
const BLOCKS = new Set(['p', 'div', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'tr', 'table', 'ul', 'ol', 'blockquote', 'section', 'article', 'header', 'footer']);
const TAG_NAME = /^(\/?)([a-zA-Z][a-zA-Z0-9-]*)/;
const HREF = /href\s*=\s*(?:"([^"]*)"|'([^']*)')/iy;

/** A tag's quoted href; a few tries at most, each linear, so a hostile tag cannot go quadratic. */
function hrefOf(tag: string, lowerTag: string): string | undefined {
  let at = lowerTag.indexOf('href');
  for (let tries = 0; at !== -1 && tries < 3; tries++) {
    HREF.lastIndex = at;
    const m = HREF.exec(tag);
    if (m) return m[1] ?? m[2] ?? '';
    at = lowerTag.indexOf('href', at + 4);
  }
  return undefined;
}

/**
 * The plain-text part generated when a sender gives only `html`: blocks become lines, links keep
 * their target, tags and invisible content go. One forward scan, so any input of the body limit
 * converts in linear time (regexes with lazy scans go quadratic on unclosed tags and comments).
 */
export function textFromHtml(html: string): string {
  const lower = html.toLowerCase();
  const parts: string[] = [];
  let anchor: { href: string; start: number } | undefined;
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt === -1) {
      parts.push(decodeEntities(html.slice(i)));
      break;
    }
    parts.push(decodeEntities(html.slice(i, lt)));
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end === -1 ? html.length : end + 3;
      continue;
    }
    const gt = html.indexOf('>', lt + 1);
    if (gt === -1) break;
    i = gt + 1;
    const tag = html.slice(lt + 1, gt);
    const m = TAG_NAME.exec(tag);
    if (!m) {
      parts.push(decodeEntities(html.slice(lt, gt + 1)));
      continue;
    }
    const closing = m[1] === '/';
    const name = m[2]!.toLowerCase();
    if (!closing && INVISIBLE.has(name)) {
      const end = lower.indexOf(`</${name}`, i);
      if (end === -1) break;
      const endGt = html.indexOf('>', end);
      i = endGt === -1 ? html.length : endGt + 1;
      continue;
    }
    if (name === 'a') {
      if (!closing) {
        const href = hrefOf(tag, lower.slice(lt + 1, gt));
        anchor = href === undefined ? undefined : { href, start: parts.length };
      } else if (anchor) {
        const label = parts.slice(anchor.start).join('').trim();
        const { href } = anchor;
        if (!label) parts.push(href);
        else if (label !== href && !/^(mailto:|#)/i.test(href)) parts.push(` (${href})`);
        anchor = undefined;
      }
    } else if (name === 'br') parts.push('\n');
    else if (name === 'li' && !closing) parts.push('\n- ');
    else if (closing && BLOCKS.has(name)) parts.push('\n\n');
  }
  return parts
    .join('')
    .replace(/[ \t\f\v\r]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
