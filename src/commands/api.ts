import type { Command } from 'commander';
import type { Context } from '../context.js';
import type { ApiOptions } from './api.run.js';
import { verb } from './verb.js';

const METHODS = ['GET', 'POST', 'DELETE'] as const;

export function register(parent: Command, ctx: Context): void {
  parent
    .command('api')
    .description('call any /v1 endpoint with your credentials and print the JSON answer')
    .argument('<method>', METHODS.join(' | '))
    .argument('<path>', 'e.g. /v1/webhooks (the /v1 prefix is added when missing)')
    .option('-d, --data <json|@file|->', 'JSON request body: inline, @file, or - for stdin (POST only)')
    .addHelpText(
      'after',
      `
Only the body is printed (stdout), secrets masked (secretKey, token) except in the answer that
creates a key or webhook, the one time they are shown. A non-2xx answer exits with the usual codes (3 auth, 4 rejected,
5 limits, 6 network) and the API's message on stderr. A POST is sent once, never retried.

Examples:
  $ mailroom api GET /v1/api-keys/check
  $ mailroom api GET webhooks
  $ mailroom api POST /v1/webhooks/wh_123 --data '{"events":["CONTACT_CREATED"]}'
  $ mailroom api POST /v1/emails --data @email.json
  $ mailroom api DELETE /v1/webhooks/wh_123`,
    )
    .action(verb(ctx, () => import('./api.run.js'), (flags: { data?: string }, [method, path]): ApiOptions => ({ ...flags, method: method as string, path: path as string })));
}
