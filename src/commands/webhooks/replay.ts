import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { verb } from '../verb.js';
import { rerunCommand } from '../shared/command-line.js';
import type { WebhooksReplayOptions } from './replay.run.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('replay')
    .description("re-send journalled deliveries to your app, in order, re-signed with the webhook's token")
    .requiredOption('--journal <file>', 'the journal written by webhooks listen --journal')
    .option('--since <time>', 'only deliveries received since: ISO 8601, or a span back from now (30m, 1h, 2d)')
    .option('--event <E,...>', 'only these events')
    .option('--lines <n,n-m,...>', 'only the entries on these journal lines (what webhooks listen prints at stop for the deliveries it did not forward)')
    .requiredOption('--forward-to <url>', 'your app: each delivery is POSTed here')
    .option('--token <wht_…>', "the listener's signing token (env MAILROOM_WEBHOOK_TOKEN); argv is visible to other local users: prefer the env or --token-file")
    .option('--token-file <path|->', 'read the signing token from a file, or - for stdin')
    .option('--webhook <wh_id>', 'fetch the signing token of this webhook from the API (needs an API key)')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom webhooks replay --journal deliveries.ndjson --webhook wh_123 --forward-to http://localhost:3000/webhooks
  $ mailroom webhooks replay --journal deliveries.ndjson --since 1h --event CONTACT_CREATED --forward-to http://localhost:3000/hook
  $ mailroom webhooks replay --journal deliveries.ndjson --lines 12,15-20 --forward-to http://localhost:3000/hook

Replays the deliveries the listener accepted (refused requests and connection tests are skipped), with
their exact body bytes and headers and a fresh signature over the body. Exit 0 when your app answered
2xx to every one; 7 when any failed (non-2xx answer or no connection), after trying them all, with
the command that re-sends only those; 130 on Ctrl-C (the delivery under way finishes; the message
gives the command for the rest, by journal line).`,
    )
    .action(
      verb(ctx, () => import('./replay.run.js'), (flags: Omit<WebhooksReplayOptions, 'rerun'>, _operands, cmd): WebhooksReplayOptions => ({ ...flags, rerun: (set) => rerunCommand(cmd, set) })),
    );
}
