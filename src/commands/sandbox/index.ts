import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Context } from '../../context.js';
import { verb } from '../verb.js';
import type { SandboxTriggerOptions } from './trigger.run.js';
import type { SandboxEnvOptions } from './env.run.js';
import { parseIntegerOption } from '../shared/option-parsers.js';
import { register as registerInspect } from './inspect.js';
import { SANDBOX_DEFAULT_PORT, SANDBOX_DEFAULT_URL } from '../../config/sandbox-default.js';

function parseShare(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError(`${name} must be a number from 0 to 1`);
    return n;
  };
}

function parsePositive(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a positive number`);
    return n;
  };
}

export function register(parent: Command, ctx: Context): void {
  const sandbox = parent
    .command('sandbox')
    .description('run a local emulator of the whole API: no account, no real email')
    .addOption(
      new Option('--port <n>', `port to listen on; 0 picks a free one (default ${SANDBOX_DEFAULT_PORT})`).argParser(parseIntegerOption('--port', 0, 65535)),
    )
    .option('--host <host>', 'interface to listen on (default 127.0.0.1; anything else is reachable from other machines)')
    .option('--api-key <key>', 'secret of the ready API key (default: generated)')
    .option('--data <file>', "keep every workspace's state in this file across restarts (saved before each answer; survives a crash)")
    .option('--config <file>', 'JSON config: verifiedEmails, verifiedDomains, templates, monthlyLimit, rateLimit, retain, faults, deliveries, webhooks')
    .addOption(new Option('--monthly-limit <n>', 'emails accepted per month before 403').argParser(parseIntegerOption('--monthly-limit', 0)))
    .addOption(new Option('--retain <n>', 'keep the newest n emails, webhook deliveries and contacts (default 10000); counts cover all').argParser(parseIntegerOption('--retain', 1)))
    .addOption(new Option('--rate-limit <n>', 'requests per second per API key before 429').argParser(parsePositive('--rate-limit')))
    .addOption(new Option('--error-rate <share>', 'share of /v1 requests answered 503').argParser(parseShare('--error-rate')))
    .addOption(new Option('--drop-rate <share>', 'share of /v1 requests whose connection is dropped unanswered').argParser(parseShare('--drop-rate')))
    .addOption(new Option('--lost-rate <share>', 'share of /v1 requests done but never answered').argParser(parseShare('--lost-rate')))
    .addOption(new Option('--latency <ms>', 'delay each /v1 answer after the work is done (a client that times out may still have sent)').argParser(parseIntegerOption('--latency', 0, 60_000)))
    .addOption(new Option('--latency-before <ms>', 'delay each /v1 request before any work is done').argParser(parseIntegerOption('--latency-before', 0, 60_000)))
    .addOption(new Option('--fault-seed <n>', 'with --error-rate, --drop-rate or --lost-rate: make the injected faults repeatable: the same seed, the same faults for the n-th /v1 request').argParser(parseIntegerOption('--fault-seed', 0, 2 ** 32 - 1)))
    .option('--allow-remote-webhooks', 'deliver webhooks to any URL; by default only to this machine (loopback, localhost, *.test), others are recorded as not delivered')
    .option('--json', 'print one line {"baseUrl","apiKey","workspaceId"} on stdout when ready')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom sandbox
  $ mailroom sandbox --port 0 --json --data sandbox.json
  $ export MAILROOM_BASE_URL=${SANDBOX_DEFAULT_URL} MAILROOM_API_KEY=<the key it prints>
  $ mailroom sandbox trigger CONTACT_CREATED --email ada@example.com`,
    )
    .action(verb(ctx, () => import('./serve.run.js')));

  sandbox
    .command('trigger')
    .description('fire a webhook event in a running sandbox (POST /_sandbox/events)')
    .argument('<event>', 'CONTACT_CREATED, CONTACT_UPDATED, CONTACT_UNSUBSCRIBED, CONTACT_RESUBSCRIBED, CONTACT_DELETED or WORKSPACE_TEAM_MEMBER_JOINED')
    .option('--email <address>', 'the contact (or team member) the event is about')
    .addHelpText(
      'after',
      `
The sandbox is found at --base-url, else MAILROOM_BASE_URL, else ${SANDBOX_DEFAULT_URL}.
--workspace <wrk_id> (else MAILROOM_WORKSPACE) fires to the webhooks of a workspace \`sandbox workspace create\` made.

Examples:
  $ mailroom sandbox trigger CONTACT_CREATED --email ada@example.com
  $ mailroom sandbox trigger contact_unsubscribed --email ada@example.com --json
  $ mailroom sandbox trigger WORKSPACE_TEAM_MEMBER_JOINED --base-url http://127.0.0.1:5025`,
    )
    .action(verb(ctx, () => import('./trigger.run.js'), (flags: { email?: string }, [event]): SandboxTriggerOptions => ({ event: event as string, email: flags.email })));

  sandbox
    .command('env')
    .description('print the line that points a shell at the running sandbox: eval "$(mailroom sandbox env)"')
    .addHelpText(
      'after',
      `
A sandbox started on a fixed port (not --port 0) records its address and key in the state directory
($MAILROOM_STATE_DIR, else ~/.local/state/mailroom, under sandboxes/). This prints
"export MAILROOM_BASE_URL=... MAILROOM_API_KEY=... MAILROOM_WORKSPACE=..." for the one that is
running and answers with that key; nothing when none is (exit 6). Several running: pick one with
--base-url. Nothing is changed until you eval it, and only in that shell.

Examples:
  $ eval "$(mailroom sandbox env)"
  $ eval "$(mailroom sandbox env --base-url URL)"`,
    )
    .action(verb(ctx, () => import('./env.run.js'), (): SandboxEnvOptions => ({})));

  registerInspect(sandbox, ctx);
}
