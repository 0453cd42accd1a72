import type { Command } from 'commander';
import type { Context } from '../context.js';
import { verb } from './verb.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('doctor')
    .description('check everything that decides whether commands work: versions, config, credentials, the API, proxy, clock')
    .addHelpText(
      'after',
      `
Each line is ok, warn or fail, with the fix under it. The key is checked against the API.

Examples:
  $ mailroom doctor
  $ mailroom doctor --json | jq '.checks[] | select(.status != "ok")'
  $ mailroom --profile ci doctor

Exit codes: 0 nothing needed failed, 3 no key or a rejected one, 6 API unreachable, 2 bad config.`,
    )
    .action(verb(ctx, () => import('./doctor.run.js'), (): Record<string, never> => ({})));
}
