import type { Command } from 'commander';
import type { Context } from '../context.js';
import { verb } from './verb.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('login')
    .description('store an API key in a profile, after checking it with the API')
    .option('--api-key-stdin', 'read the key from stdin instead of a hidden prompt')
    .addHelpText(
      'after',
      `
The key is asked with a hidden prompt on a terminal, or read from stdin with --api-key-stdin; it is
checked (GET /v1/api-keys/check) before anything is saved. The global --profile, --base-url and
--workspace choose the profile and are stored with it.

Examples:
  $ mailroom login
  $ printf '%s' "$SMASHSEND_API_KEY" | mailroom login --api-key-stdin --profile ci
  $ mailroom login --profile staging --base-url https://staging-api.example.com --workspace wrk_123`,
    )
    .action(verb(ctx, () => import('./login.run.js')));
}
