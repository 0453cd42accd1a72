import type { Command } from 'commander';
import type { Context } from '../context.js';
import type { Globals } from '../context.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('whoami')
    .description('who the API sees: the key\'s name and role, and where key, base URL and workspace come from (doctor\'s short form)')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom whoami
  $ mailroom --profile ci whoami --json

Exit codes: 0 valid key, 3 no key or a rejected one, 6 API unreachable.`,
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const { runWhoami } = await import('./doctor.js');
      process.exitCode = await runWhoami(ctx, cmd.optsWithGlobals<Globals>());
    });
}
