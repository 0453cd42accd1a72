import type { Command } from 'commander';
import type { Context } from '../context.js';
import { verb } from './verb.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('check')
    .description('validate the API key (GET /v1/api-keys/check); exit 0 when valid, 3 when not')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom check                       # status, name, role and where the key came from
  $ mailroom check -q && ./deploy.sh     # CI: exit code only
  $ MAILROOM_API_KEY=sk_live_... mailroom check --json

Exit codes: 0 valid; 2 nothing sent (bad flag or URL, unknown profile, key in clear text over
http:// to a host that is not loopback without --allow-http); 3 invalid or missing key; 4 the API
answered 404 (a path after the host?); 5 rate limited; 6 API unreachable (docs/ci.md).`,
    )
    .action(verb(ctx, () => import('./check.run.js'), (): Record<string, never> => ({})));
}
