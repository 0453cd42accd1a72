import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// The import rules of .dependency-cruiser.mjs (docs/internals.md, "Layers" and "The core and the
// CLI"), read as data: which rules forbid an import from one module to another. `npm run deps`
// applies them to the tree as it is; this says what they would refuse.
interface Side {
  path?: string;
  pathNot?: string;
  circular?: boolean;
  couldNotResolve?: boolean;
}
interface Rule {
  name: string;
  from: Side;
  to: Side;
}

const { default: config } = (await import(pathToFileURL(join(import.meta.dirname, '..', '..', '.dependency-cruiser.mjs')).href)) as { default: { forbidden: Rule[] } };

const matches = (side: Side, module: string) => (side.path === undefined || new RegExp(side.path).test(module)) && (side.pathNot === undefined || !new RegExp(side.pathNot).test(module));

/** The rules that refuse `from` importing `to`. */
function refusing(from: string, to: string): string[] {
  return config.forbidden
    .filter((r) => (r.to.path !== undefined || r.to.pathNot !== undefined) && matches(r.from, from) && matches(r.to, to))
    .map((r) => r.name);
}

const CORE = ['src/api/emails.ts', 'src/batch/run.ts', 'src/webhook/listener.ts', 'src/sandbox/server.ts', 'src/lint/lint.ts', 'src/transport/http.ts', 'src/schema/email.ts', 'src/library/mailroom.ts'];
const CLI = ['src/commands/context.ts', 'src/commands/send.run.ts', 'src/program.ts', 'src/report-error.ts', 'src/output/print.ts', 'src/output/resources.ts', 'src/output/progress.ts', 'src/input/prompter.ts', 'src/input/confirm.ts'];

describe('the dependency rules see the line between the core and the CLI', () => {
  it.each(CORE)('%s may import no CLI module: commands, the command context, printers, prompts', (core) => {
    for (const cli of CLI) expect(refusing(core, cli), `${core} → ${cli}`).toContain('core-not-cli');
  });

  it('a webhook module cannot take the command context (it lives with the commands, above the features)', () => {
    expect(refusing('src/webhook/registration.ts', 'src/commands/context.ts')).toEqual(expect.arrayContaining(['core-not-cli', 'features-not-up']));
    expect(refusing('src/transport/create.ts', 'src/commands/context.ts')).toEqual(expect.arrayContaining(['core-not-cli', 'transport-not-up']));
  });

  it('the core keeps what is not the CLI: file locks, output targets, one-line text, the settings and the base', () => {
    for (const to of ['src/output/lock.ts', 'src/output/targets.ts', 'src/output/one-line.ts', 'src/errors.ts', 'src/context.ts', 'src/schema/ids.ts']) {
      expect(refusing('src/batch/run.ts', to), `src/batch/run.ts → ${to}`).toEqual([]);
    }
    expect(refusing('src/transport/create.ts', 'src/config/settings.ts')).toEqual([]);
  });

  it('commands use the command context, and the library only through api-client.ts', () => {
    expect(refusing('src/commands/send.run.ts', 'src/commands/context.ts')).toEqual([]);
    expect(refusing('src/commands/shared/api-client.ts', 'src/library/mailroom.ts')).toEqual([]);
    expect(refusing('src/commands/send.run.ts', 'src/library/mailroom.ts')).toEqual(['commands-through-api-client']);
  });
});
