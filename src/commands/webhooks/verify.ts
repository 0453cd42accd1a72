import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { verb } from '../verb.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('verify')
    .description('check a webhook signature locally (no network, no API key); explains a mismatch')
    .option('--token <wht_…>', 'the webhook signing token (env MAILROOM_WEBHOOK_TOKEN); argv is visible to other local users: prefer the env or --token-file')
    .option('--token-file <path|->', 'read the signing token from a file, or - for stdin')
    .option('--signature <hex>', 'the received X-Smashsend-Signature value')
    .option('--payload <file|->', 'the raw request body (default: stdin, unless --header-file holds it)')
    .option('--header-file <file|->', 'a captured request (request line, headers, blank line, body) or its headers only')
    .option('--max-age <duration>', 'also refuse a delivery whose envelope time is older (e.g. 5m): a captured one sent again')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom webhooks verify --token "$TOKEN" --signature 3f1c… --payload body.json
  $ mailroom webhooks verify --header-file captured-request.http      # token from MAILROOM_WEBHOOK_TOKEN
  $ mailroom webhooks sample CONTACT_CREATED --token "$TOKEN" >body.json 2>headers.txt
  $ mailroom webhooks verify --token "$TOKEN" --header-file headers.txt --payload body.json

The signature is HMAC-SHA256 of the exact body bytes keyed with the token, as lowercase hex.
Exit 0 when it matches, 8 when it does not (with the likely cause: no signature header, malformed
signature, wrong token, or a body that was re-serialised or gained a trailing newline) or, with
--max-age, when the delivery is older than that; 2 on bad input.`,
    )
    .action(verb(ctx, () => import('./verify.run.js')));
}
