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

describe('commands reach the API through the library client (docs/internals.md, "The context")', () => {
  // The transport itself, only where a command's job is below the typed calls: raw requests (api),
  // the batch engine's prebuilt bodies, the key check read by hand to keep `check` lean at start-up
  // (check, doctor, login with a key not stored yet), rotate's check of the new key between its
  // prompts, and sandbox env's probe of a recorded sandbox with its own key.
  const TRANSPORT_USERS = ['api.run.ts', 'batch.run.ts', 'check.run.ts', 'keys/rotate.run.ts', 'login.run.ts', 'sandbox/env.run.ts', 'shared/api-client.ts', 'shared/diagnose.ts'];

  it('ctx.api() appears nowhere else: every other command calls apiClient(ctx)', () => {
    const all = files(root).map((f) => relative(root, f));
    const direct = all.filter((f) => /\bctx\.api\(/.test(readFileSync(join(root, f), 'utf8')));
    expect(direct.sort()).toEqual([...TRANSPORT_USERS].sort());
  });
});

describe('what mailroom says on stderr starts with its name (docs/input-and-output.md)', () => {
  it('every note and warning is made by src/output/notice.ts ("mailroom: note: …", "mailroom: warning: …"), as errors are "mailroom: …"', () => {
    const src = join(import.meta.dirname, '..', '..', 'src');
    const written = files(src)
      .filter((f) => f.endsWith('.ts') && relative(src, f) !== join('output', 'notice.ts'))
      .flatMap((f) => readFileSync(f, 'utf8').split('\n').map((line, i) => ({ at: `${relative(src, f)}:${i + 1}`, line })))
      .filter(({ line }) => /[`'"](mailroom: )?(note|warning): /.test(line))
      .map(({ at }) => at);
    expect(written).toEqual([]);
  });
});
