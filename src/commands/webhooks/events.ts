import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { verb } from '../verb.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('events')
    .description('the webhook event names and what each means (no network, no API key)')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom webhooks events
  $ mailroom webhooks events --json | jq -r '.items[].event'`,
    )
    .action(verb(ctx, () => import('./events.run.js'), (): Record<string, never> => ({})));
}
