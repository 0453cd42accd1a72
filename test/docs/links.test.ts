import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const markdownFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? markdownFiles(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : []));
const PAGES = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))];

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens. */
function anchors(markdown: string): Set<string> {
  const text = markdown.replace(/^(`{3,}|~{3,})[\s\S]*?^\1/gm, '');
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of text.matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = (m[1] as string).toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

describe('links between the README and the docs', () => {
  it('every relative link names a file that exists, and an anchor that file has', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      const text = readFileSync(page, 'utf8').replace(/^(`{3,}|~{3,})[\s\S]*?^\1/gm, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1] as string;
        if (/^[a-z]+:/.test(target)) continue;
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path === '' ? page : resolve(dirname(page), path);
        const where = `${relative(ROOT, page)}: (${target})`;
        if (!existsSync(file)) broken.push(`${where}: no such file`);
        else if (anchor !== undefined && (statSync(file).isDirectory() || !anchors(readFileSync(file, 'utf8')).has(anchor))) broken.push(`${where}: no such heading`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the README', () => {
  it('stays the front door: at most 10 KB (details belong in a guide under docs/, linked from it)', () => {
    expect(statSync(join(ROOT, 'README.md')).size, 'README.md is over 10 KB: move the detail to the guide concerned in docs/ and link it').toBeLessThanOrEqual(10 * 1024);
  });
});
