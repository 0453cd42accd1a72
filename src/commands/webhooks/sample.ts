import type { Command } from 'commander';
import type { Context } from '../../context.js';
import type { WebhooksSampleOptions } from './sample.run.js';
import { verb } from '../verb.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('sample')
    .argument('<EVENT>', 'one of the six event names (mailroom webhooks events lists them)')
    .description('print a realistic delivery body for an event, and with a token its signature header')
    .option('--token <wht_…>', 'sign the body with this token (env MAILROOM_WEBHOOK_TOKEN); argv is visible to other local users: prefer the env or --token-file')
    .option('--token-file <path|->', 'read the signing token from a file, or - for stdin')
    .option('--email <address>', 'the contact (or team member) address in the payload')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom webhooks sample CONTACT_CREATED
  $ mailroom webhooks sample CONTACT_UNSUBSCRIBED --email ada@example.com --token "$TOKEN" >body.json 2>headers.txt
  $ mailroom webhooks verify --token "$TOKEN" --header-file headers.txt --payload body.json

stdout is exactly the signed bytes (compact JSON, as the service and the sandbox send it; a newline
is added only when stdout is a terminal). With a token, stderr gets one line
"X-Smashsend-Signature: <hex>", a headers file that verify --header-file reads.`,
    )
    .action(verb(ctx, () => import('./sample.run.js'), (flags: Omit<WebhooksSampleOptions, 'event'>, [event]): WebhooksSampleOptions => ({ ...flags, event: event as string })));
}
