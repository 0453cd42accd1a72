import type { Command } from 'commander';
import type { Context } from '../context.js';
import type { Globals } from '../context.js';
import { QuietExit } from '../errors.js';

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
      const code = await runWhoami(ctx, cmd.optsWithGlobals<Globals>());
      // The report is printed; the code goes back through run() (main exits with what run returns).
      if (code !== 0) throw new QuietExit(code);
    });
}
