import type { Command } from 'commander';
import type { Context } from '../context.js';
import { verb } from './verb.js';

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
    .action(verb(ctx, () => import('./whoami.run.js'), (): Record<string, never> => ({})));
}
