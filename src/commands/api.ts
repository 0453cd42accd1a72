import type { Command } from 'commander';
import type { Context } from '../context.js';
import type { ApiOptions } from './api.run.js';
import { verb } from './verb.js';
import { repeatable } from './shared/repeatable-options.js';

const METHODS = ['GET', 'POST', 'DELETE'] as const;

export function register(parent: Command, ctx: Context): void {
  parent
    .command('api')
    .description('call any /v1 endpoint with your credentials and print the JSON answer')
    .argument('<method>', METHODS.join(' | '))
    .argument('<path>', 'e.g. /v1/webhooks (the /v1 prefix is added when missing)')
    .option('-d, --data <json|@file|->', 'JSON request body: inline, @file, or - for stdin (POST only)')
    .option('--input <file|->', 'the request body from a file, or - for stdin, as it is (POST only; gh api --input)')
    .option('-f, --raw-field <key=value>', 'a string field, repeatable: the JSON body of a POST, the query of a GET or DELETE; a[b]=v nests, a[]=v lists', repeatable)
    .option('-F, --field <key=value>', 'a typed field, repeatable: true, false, null and numbers as JSON, @file (@- stdin) the file\'s text, else a string', repeatable)
    .option('--paginate', 'GET every page of a list (following hasMore and startAt): one JSON document per page, a line each (NDJSON)')
    .option('--slurp', 'with --paginate: one JSON array of every page instead')
    .option('-i, --include', 'print the answer\'s HTTP status line and headers before its body (secrets masked)')
    .addHelpText(
      'after',
      `
Only the body is printed (stdout), secrets masked (secretKey, token) except in the answer that
creates a key or webhook, the one time they are shown. A non-2xx answer exits with the usual codes (3 auth, 4 rejected,
5 limits, 6 network) and the API's message on stderr. A POST is sent once, never retried.
With --data or --input, -f/-F fields go to the query string, as gh's.

Examples:
  $ mailroom api GET /v1/api-keys/check
  $ mailroom api GET webhooks
  $ mailroom api POST /v1/webhooks/wh_123 --data '{"events":["CONTACT_CREATED"]}'
  $ mailroom api POST /v1/emails --data @email.json
  $ mailroom api DELETE /v1/webhooks/wh_123
  $ mailroom api POST /v1/emails -f from=ops@example.com -f to=a@example.com -f template=welcome -F variables[n]=3
  $ mailroom api GET /v1/workspaces/wrk_1/api-keys -F limit=100 --paginate --jq '.apiKeys.items[].id'`,
    )
    .action(
      verb(ctx, () => import('./api.run.js'), (flags: Omit<ApiOptions, 'method' | 'path'>, [method, path]): ApiOptions => ({ ...flags, method: method as string, path: path as string })),
    );
}
