import { DoIUseEmail } from '@jsx-email/doiuse-email';
import { usageError } from '../errors.js';
import { closest } from '../input/choice.js';
import { positionsOf } from './html-facts.js';
import type { Finding } from './rules.js';

/**
 * Client compatibility from the caniemail data, through @jsx-email/doiuse-email (its data and
 * matcher bundled in this module, which only `lint --clients` loads: about 0.9 MB).
 */

/** The client families and ids the data knows, for checking --clients and for the error that lists them. */
function knownClients(): string[] {
  const all = new DoIUseEmail({ emailClients: ['*'] }).emailClients as readonly string[];
  return [...new Set(all.map((c) => c.split('.')[0] as string)), ...all];
}

/** `gmail,outlook.windows` → the globs the data matches: a family stands for every client of it. */
export function clientGlobs(list: string[]): string[] {
  // `--clients ''` or `--clients ,` leaves no name; the data would take none as an error of its own.
  if (list.length === 0) throw usageError('--clients: name at least one email client, such as gmail,outlook (or all)');
  const known = knownClients();
  return list.map((raw) => {
    const name = raw.trim().toLowerCase();
    if (name === 'all' || name === '*') return '*';
    if (!known.includes(name)) {
      const near = closest(name, known);
      const families = known.filter((k) => !k.includes('.'));
      throw usageError(`--clients: unknown email client "${raw}"${near.length ? ` (did you mean ${near.join(' or ')}?)` : ''}`, [`known: ${families.join(', ')}, all; or one platform, such as outlook.windows or gmail.ios`]);
    }
    return name.includes('.') ? name : `${name}.*`;
  });
}

const UNSUPPORTED = /^`(.+)` is not supported by `([^`]+)`$/;
const PARTIAL = /^`(.+)` is only partially supported by `([^`]+)`$/;
const NOTE = /^Note about `(.+)` support for `([^`]+)`: (.*)$/s;

/** One finding per feature: the clients that do not support it (warning), or only partly (info, with the data's notes). */
export function clientFindings(html: string, globs: string[]): Finding[] {
  const checker = new DoIUseEmail({ emailClients: globs });
  const result = checker.check(html);
  const unsupported = group('errors' in result ? result.errors : [], UNSUPPORTED);
  const partial = group(result.warnings, PARTIAL);
  const notes = new Map<string, string[]>();
  for (const n of result.notes) {
    const m = NOTE.exec(n);
    if (m) notes.set(m[1] as string, [...new Set([...(notes.get(m[1] as string) ?? []), `${m[2]}: ${m[3]}`])]);
  }
  const at = positionsOf(html);
  const where = (feature: string) => {
    const offset = locate(html, feature);
    return offset === -1 ? {} : at(offset);
  };
  const hint = 'use a fallback those clients render, or accept how they show it; https://www.caniemail.com has each feature\'s details';
  const out: Finding[] = [];
  for (const [feature, clients] of unsupported) out.push({ check: 'client-unsupported', severity: 'warning', message: `${feature} is not supported by ${clients.join(', ')}`, hint, ...where(feature) });
  for (const [feature, clients] of partial) {
    const detail = notes.get(feature)?.filter((n) => clients.some((c) => n.startsWith(`${c}:`)));
    out.push({ check: 'client-partial', severity: 'info', message: `${feature} is only partly supported by ${clients.join(', ')}${detail?.length ? ` (${detail.join('; ')})` : ''}`, hint, ...where(feature) });
  }
  return out;
}

function group(messages: string[], pattern: RegExp): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const m of messages) {
    const hit = pattern.exec(m);
    if (hit) by.set(hit[1] as string, [...new Set([...(by.get(hit[1] as string) ?? []), hit[2] as string])]);
  }
  return by;
}

/** Where a feature first shows in the HTML, by its name in the data: `<video> element`, `display:grid`, `@media`, `background-image`. */
function locate(html: string, feature: string): number {
  const element = /^<([\w-]+)> element$/.exec(feature);
  if (element) return html.search(new RegExp(`<${element[1]}[\\s/>]`, 'i'));
  const decl = /^([\w-]+):(.+)$/.exec(feature);
  if (decl) return html.search(new RegExp(`${decl[1]}\\s*:\\s*${(decl[2] as string).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'i'));
  if (/^@[\w-]+$/.test(feature) || /^[\w-]+$/.test(feature)) return html.search(new RegExp(`${feature.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i'));
  return -1;
}
