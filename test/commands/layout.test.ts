import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', 'src', 'commands');
const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? files(join(dir, d.name)) : [join(dir, d.name)]));

describe('src/commands holds verbs; what verbs share lives in src/commands/shared (docs/internals.md, "The verb shape")', () => {
  const all = files(root).map((f) => relative(root, f));
  it('every module outside shared/ registers a command or is a verb run module', () => {
    const misplaced = all.filter((f) => {
      if (f.startsWith('shared/') || f === 'index.ts' || f === 'verb.ts' || f === 'context.ts') return false;
      const text = readFileSync(join(root, f), 'utf8');
      if (f.endsWith('.run.ts')) return !/export async function run\(/.test(text);
      return !/\.command\(/.test(text);
    });
    expect(misplaced).toEqual([]);
  });
  it('every run module is loaded by a verb action', () => {
    const registering = all.filter((f) => !f.endsWith('.run.ts') && !f.startsWith('shared/')).map((f) => ({ f, text: readFileSync(join(root, f), 'utf8') }));
    const unloaded = all
      .filter((f) => f.endsWith('.run.ts'))
      .filter((run) => !registering.some(({ f, text }) => relative(join(f, '..'), run) !== '' && text.includes(`import('./${relative(join(f, '..'), run).replace(/\.ts$/, '.js')}')`)));
    expect(unloaded).toEqual([]);
  });
});
