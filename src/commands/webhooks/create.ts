import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { verb } from '../verb.js';
import { repeatable } from '../shared/repeatable-options.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('create')
    .description('register a webhook; its signing token is shown once')
    .requiredOption('--url <url>', 'where deliveries are POSTed (http or https)')
    .option('--event <EVENT>', 'an event to subscribe to; repeatable or comma-separated (see `webhooks events`)', repeatable)
    .option('--token <token>', 'the signing token to use (default: the API generates one)')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom webhooks create --url https://example.com/hooks --event CONTACT_CREATED --event CONTACT_UNSUBSCRIBED
  $ mailroom webhooks create --url http://localhost:8787/ --event CONTACT_CREATED,CONTACT_DELETED --json

The token (wht_...) signs every delivery. It is printed in full only here; list, get, update and
delete mask it. Keep it with your receiver (mailroom webhooks verify/listen --token).
-q, or --json fields without token, would lose it: refused unless you give --token.`,
    )
    .action(verb(ctx, () => import('./create.run.js')));
}
