import type { Command } from 'commander';
import { Option } from 'commander';
import type { Context } from '../../context.js';
import { verb } from '../verb.js';
import { parseIntegerOption } from '../shared/option-parsers.js';
import { checkDependentOptions } from '../shared/dependent-options.js';
import type { WebhooksListenOptions } from './listen.run.js';

const DEFAULT_PORT = 4242;
const DEFAULT_MAX_BODY = 1024 * 1024;
const DEFAULT_FORWARD_QUEUE = 1000;
const DEFAULT_STOP_TIMEOUT_MS = 5000;

export function register(parent: Command, ctx: Context): void {
  parent
    .command('listen')
    .description('receive webhook deliveries locally: verify, print, journal and forward them to your app')
    .addOption(new Option('--port <n>', 'port to listen on (0 picks a free one)').default(DEFAULT_PORT).argParser(parseIntegerOption('--port', 0, 65535)))
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--token <wht_…>', 'the webhook signing token (env MAILROOM_WEBHOOK_TOKEN); argv is visible to other local users: prefer the env or --token-file')
    .option('--token-file <path|->', 'read the signing token from a file, or - for stdin')
    .option('--webhook <wh_id>', "fetch the signing token of this webhook from the API (needs an API key)")
    .option('--forward-to <url>', 'POST each verified delivery, byte for byte with its headers, to your app')
    .option('--events <E,...>', 'print and forward only these events (others are still answered 200 and journalled)')
    .option('--journal <file>', 'append every request received to this NDJSON file (for webhooks replay)')
    .option('--register', 'against a sandbox: create a webhook delivering here (its events: --events, else all; its token: --token, else a new one shown once), delete it on exit')
    .option('--write-env <file>', 'write MAILROOM_WEBHOOK_TOKEN=<token> into this env file (mode 0600; other lines kept) for your app')
    .option('--exec <command>', 'start your app with this shell command, MAILROOM_WEBHOOK_TOKEN in its environment; stopped with the listener')
    .addOption(new Option('--max-body <bytes>', 'refuse bodies over this size with 413').default(DEFAULT_MAX_BODY).argParser(parseIntegerOption('--max-body', 1)))
    .addOption(new Option('--forward-queue <n>', 'with --forward-to: deliveries waiting to be forwarded before new ones get 503 (the service retries them)').default(DEFAULT_FORWARD_QUEUE).argParser(parseIntegerOption('--forward-queue', 1)))
    .addOption(new Option('--stop-timeout <ms>', 'with --forward-to: on Ctrl-C/SIGTERM, how long a forward under way may finish').default(DEFAULT_STOP_TIMEOUT_MS).argParser(parseIntegerOption('--stop-timeout', 0)))
    .option('--max-age <duration>', 'refuse deliveries whose envelope time is older (e.g. 5m): a captured delivery sent again')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom webhooks listen --webhook wh_123 --forward-to http://localhost:3000/webhooks
  $ MAILROOM_WEBHOOK_TOKEN=wht_… mailroom webhooks listen --port 0 --journal deliveries.ndjson
  $ mailroom webhooks listen --token "$TOKEN" --events CONTACT_CREATED,CONTACT_DELETED | jq .data
  $ MAILROOM_BASE_URL=http://127.0.0.1:4025 mailroom webhooks listen --register --api-key sk_live_…
  $ mailroom webhooks listen --register --forward-to http://localhost:3000/webhooks --exec 'node app.js' --journal j.ndjson
  $ mailroom webhooks listen --register --write-env .env --forward-to http://localhost:3000/webhooks

Each POST, on any path: the body is read raw (413 over --max-body), its X-Smashsend-Signature (or any
X-*-Signature) checked in constant time against the token; 200 when valid, 401 when the signature is
missing or wrong, with the likely cause (wrong token, or a body re-serialised on the way). With
--journal, a 200 is sent only once the delivery is on disk; forwarding follows, one at a time, and a
full --forward-queue answers 503 so the service retries. On stop, deliveries your app did not take
(failed or not yet forwarded) stay in the journal, and the command that replays exactly those (by
journal line) is printed. A body must arrive within 10 s of its headers, and at most 32 are read at
once (one more closes the one waiting longest): senders that stall mid-body cannot hold memory.
TESTING_CONNECTION is answered 200 and printed, never forwarded. Lines go to stdout: readable on a
terminal, NDJSON when piped. "Ready: listening on …" goes to stderr; with --json the first stdout line
is {"ready":true,"url":…}. Ctrl-C stops it.`,
    )
    .action(verb(ctx, () => import('./listen.run.js'), (flags: WebhooksListenOptions, _operands, cmd): WebhooksListenOptions => {
      checkDependentOptions('webhooks listen', cmd);
      return flags;
    }));
}
