import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXIT, EXIT_MEANINGS } from '../../src/exit-codes.js';
import { renderHelpCatalog } from '../../src/build/help-catalog.js';
import { REGENERATE, renderReference, withReadmeCommands, type Reference } from '../../src/build/help-reference.js';
import { ENVIRONMENT } from '../../src/help-topics.js';

const ROOT = join(import.meta.dirname, '../..');
const DIR = join(ROOT, 'docs/reference');
const stale = (what: string) => `${what} is not what the command tree generates: run \`${REGENERATE}\` and commit the result`;

describe('the generated reference (docs/reference/, the README command list)', () => {
  let reference: Reference;
  beforeAll(async () => {
    reference = await renderReference();
  }, 60_000);

  it('has one page per command of the tree, plus the index, exit codes and environment, and nothing else', async () => {
    const { screens } = await renderHelpCatalog();
    const commands = Object.keys(screens)
      .filter((k) => k.endsWith('--help'))
      .map((k) => k.replace(/ ?--help$/, ''));
    const expected = [...commands.map((c) => `${c === '' ? 'mailroom' : c.replace(/ /g, '-')}.md`), 'README.md', 'exit-codes.md', 'environment.md'].sort();
    expect(Object.keys(reference.pages).sort()).toEqual(expected);
    expect(readdirSync(DIR).sort(), stale('the set of files in docs/reference/')).toEqual(expected);
  });

  it('every committed page is the generated one', () => {
    for (const [name, text] of Object.entries(reference.pages)) {
      expect(readFileSync(join(DIR, name), 'utf8'), stale(`docs/reference/${name}`)).toBe(text);
    }
  });

  it("the README's command list is the generated one", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme, stale("README.md's command list")).toBe(withReadmeCommands(readme, reference.readmeCommands));
  });

  it('a command page shows its help screen, and the exit-code and environment pages every entry of the code', async () => {
    const { screens } = await renderHelpCatalog();
    expect(reference.pages['keys-list.md']).toContain(screens['keys list --help']!.out.trimEnd());
    const rows = [...reference.pages['exit-codes.md']!.matchAll(/^\| (\d+) \| (\w+) \| (.+) \|$/gm)].map((m) => [Number(m[1]), m[2], m[3]]);
    expect(rows).toEqual(Object.entries(EXIT).map(([kind, code]) => [code, kind, EXIT_MEANINGS[kind as keyof typeof EXIT]]));
    for (const s of ENVIRONMENT.sections) for (const [name] of s.items) expect(reference.pages['environment.md']).toContain(`| \`${name}\` |`);
  });

  it('the man page lists every command, variable and exit code, in roff no line can break', () => {
    const man = reference.manPage;
    expect(man).toMatch(/^\.TH MAILROOM 1 /);
    for (const name of Object.keys(reference.pages).filter((n) => !['README.md', 'exit-codes.md', 'environment.md', 'mailroom.md'].includes(n))) {
      expect(man).toContain(`.SS mailroom ${name.replace(/\.md$/, '').replace(/-/g, ' ')}\n`);
    }
    for (const code of Object.values(EXIT)) expect(man).toContain(`.TP\n.B ${code}\n`);
    for (const s of ENVIRONMENT.sections) for (const [name] of s.items) expect(man).toContain(`.B ${name}\n`);
    // A help line starting with "." or "'" would be read as a roff request; a lone backslash as an escape.
    const text = man.split('\n').filter((l) => !/^\.(TH|SH|SS|TP|B|RI|nf|fi)( |$)/.test(l));
    for (const line of text) expect(line).not.toMatch(/^[.']/);
    expect(man).not.toMatch(/\\(?![e&-])/);
  });
});

describe('the environment table (help environment, docs/reference/environment.md, the man page)', () => {
  const sourceFiles = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
  // The platform's own: where home is, what the terminal is, a bundler's define.
  const PLATFORM = new Set(['HOME', 'APPDATA', 'TERM', 'NODE_ENV']);

  it('names every environment variable the code reads (env.NAME), MAILROOM_* and the conventional ones alike', () => {
    const listed = ENVIRONMENT.sections.flatMap((s) => s.items.flatMap(([names, meaning]) => [...`${names} ${meaning}`.matchAll(/\b[A-Z][A-Z0-9_]{2,}\b/g)].map((m) => m[0])));
    const read = new Set<string>();
    for (const file of sourceFiles(join(ROOT, 'src'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\benv(?:\.|\?\.|\[')([A-Za-z_][A-Za-z0-9_]*)/g)) {
        const name = (m[1] as string).toUpperCase();
        if (/^[A-Z0-9_]+$/.test(m[1] as string) || name.endsWith('_PROXY')) read.add(name);
      }
    }
    const missing = [...read].filter((v) => !PLATFORM.has(v) && !listed.includes(v));
    expect(missing, 'add them to ENVIRONMENT in src/help-topics.ts, then run npm run docs').toEqual([]);
  });
});
