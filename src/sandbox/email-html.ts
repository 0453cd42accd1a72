/**
 * An email's HTML as the inbox's frame shows it. The frame is sandboxed without scripts, so this is
 * about usefulness, not safety: links open in a new tab (a sandboxed frame may not navigate the
 * page), and what would leave the frame unasked (meta refresh, script-like URLs) is taken out.
 */

const LINK_TAG = /<(a|area)\b((?:[^>"']|"[^"]*"|'[^']*')*)>/gi;
const ATTR = /\s([a-z-]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+))?/gi;
const META_REFRESH = /<meta\b[^>]*\bhttp-equiv\s*=\s*["']?\s*refresh[^>]*>/gi;
/** Literal prefixes only: an entity-encoded scheme is not followed. */
const FOLLOWED = /^\s*(?:https?:|mailto:|tel:)/i;

function unquote(value: string | undefined): string {
  if (value === undefined) return '';
  return /^["']/.test(value) ? value.slice(1, -1) : value;
}

function rewriteLink(tag: string, attrs: string): string {
  let href: string | undefined;
  const kept = attrs.replace(ATTR, (whole, name: string, value: string | undefined) => {
    const lower = name.toLowerCase();
    if (lower === 'href') {
      href = unquote(value);
      return '';
    }
    return lower === 'target' || lower === 'rel' ? '' : whole;
  });
  const end = kept.replace(/\s*\/\s*$/, '');
  if (href === undefined) return `<${tag}${end}>`;
  if (href.trim().startsWith('#')) return `<${tag} href="${href.replace(/"/g, '&quot;')}"${end}>`;
  if (!FOLLOWED.test(href)) return `<${tag}${end} data-blocked-href>`;
  return `<${tag} href="${href.replace(/"/g, '&quot;')}" target="_blank" rel="noopener noreferrer"${end}>`;
}

export function prepareEmailHtml(html: string): string {
  return html.replace(META_REFRESH, '').replace(LINK_TAG, (_m, tag: string, attrs: string) => rewriteLink(tag, attrs));
}

const REMOTE = /(?:\b(?:src|background|poster|srcset)\s*=\s*["']?\s*(?:https?:)?\/\/)|(?:url\(\s*["']?\s*(?:https?:)?\/\/)|(?:@import\s+["']?\s*(?:https?:)?\/\/)/gi;

/** How many remote resources (images, backgrounds, stylesheets) the HTML asks for: what blocking withholds. */
export function countRemoteResources(html: string): number {
  return html.match(REMOTE)?.length ?? 0;
}

/**
 * The policy of the frame's document: no scripts ever (and a CSP sandbox even when it is opened on
 * its own), remote images, styles and fonts only when asked for.
 */
export function emailFrameCsp(remote: boolean): string {
  const r = remote ? ' http: https:' : '';
  return [
    "default-src 'none'",
    `img-src data: cid:${r}`,
    `style-src 'unsafe-inline'${r}`,
    `font-src data:${r}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
    'sandbox allow-popups allow-popups-to-escape-sandbox',
  ].join('; ');
}
