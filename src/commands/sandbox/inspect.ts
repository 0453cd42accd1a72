import { Option, type Command } from 'commander';
import type { Context } from '../../context.js';
import { choiceParser } from '../../input/choice.js';
import { verb } from '../verb.js';
import { SANDBOX_DEFAULT_URL } from '../../config/sandbox-default.js';
import type { SandboxEmailOptions } from './email.run.js';
import type { SandboxOpenOptions } from './open.run.js';
import type { SandboxResendOptions } from './resend.run.js';
import type { SandboxWaitOptions } from './wait.run.js';
import type { SandboxWorkspaceCreateOptions } from './workspace-create.run.js';
import type { SandboxWorkspaceDeleteOptions } from './workspace-delete.run.js';
import { parseIntegerOption } from '../shared/option-parsers.js';

const STATUSES = ['SENT', 'SCHEDULED'] as const;
const SEVERITIES = ['error', 'warning', 'info'] as const;

export function register(sandbox: Command, ctx: Context): void {
  const where = `\nThe sandbox is found at --base-url, else MAILROOM_BASE_URL, else ${SANDBOX_DEFAULT_URL}.`;
  const scoped = '\n--workspace <wrk_id> (else MAILROOM_WORKSPACE) shows a workspace `sandbox workspace create` made; default the first.';

  sandbox
    .command('emails')
    .description('list the emails a running sandbox caught, newest last')
    .option('--to <text>', 'only recipients containing this (case-insensitive)')
    .option('--search <text>', 'only emails whose to, from, subject, template or id contains this')
    .addOption(new Option('--status <status>', 'only SENT or SCHEDULED emails').choices(STATUSES).argParser(choiceParser('--status', STATUSES)))
    .addOption(new Option('--last <n>', 'only the newest n (on a terminal the default is the newest 50)').argParser(parseIntegerOption('--last', 1)))
    .addOption(new Option('--all', 'every email, also on a terminal (piped output always has every one)').conflicts('last'))
    .addHelpText(
      'after',
      `${where}${scoped}

Examples:
  $ mailroom sandbox emails --last 5
  $ mailroom sandbox emails --to ada@ --json | jq -r '.items[].id'`,
    )
    .action(verb(ctx, () => import('./emails.run.js')));

  sandbox
    .command('wait')
    .description('wait until a running sandbox catches an email (or --count of them) and print it; exit 11 at --timeout')
    .option('--to <address>', 'only emails to this address (whole, case-insensitive)')
    .option('--subject <text>', 'only emails whose subject contains this (case-insensitive)')
    .addOption(new Option('--count <n>', 'wait for this many matching emails (default 1)').argParser(parseIntegerOption('--count', 1, 10_000)))
    .addHelpText(
      'after',
      `${where}${scoped} --timeout is how long to wait (default 10s; 30s, 2m, or ms).
Emails caught before the command started count too. Resolves as the email is caught (no polling).

Examples:
  $ mailroom sandbox wait --to ada@example.com --subject "Reset your password" --timeout 10s
  $ id=$(mailroom sandbox wait --to ada@example.com --json | jq -r '.items[0].id')`,
    )
    .action(verb(ctx, () => import('./wait.run.js'), (flags: SandboxWaitOptions): SandboxWaitOptions => flags));

  const workspace = sandbox
    .command('workspace')
    .description('list the workspaces of a running sandbox (an inbox and key of its own for each test worker); `create` makes one, `delete` removes one')
    .addHelpText(
      'after',
      `${where}

Examples:
  $ mailroom sandbox workspace
  $ mailroom sandbox workspace create --name "worker 1"
  $ mailroom sandbox workspace delete wrk_123`,
    )
    .action(verb(ctx, () => import('./workspaces.run.js'), (): Record<string, never> => ({})));
  workspace
    .command('list')
    .description('list the workspaces of a running sandbox, as `sandbox workspace` alone does')
    .addHelpText(
      'after',
      `${where}

Examples:
  $ mailroom sandbox workspace list
  $ mailroom sandbox workspace list --json id,name`,
    )
    .action(verb(ctx, () => import('./workspaces.run.js'), (): Record<string, never> => ({})));
  workspace
    .command('create')
    .description('make a workspace with its own API key: what that key sends, the sandbox commands see with --workspace')
    .option('--name <name>', 'a name shown in the inbox (default "Test workspace <n>")')
    .addHelpText(
      'after',
      `${where} The new API key is printed once. Its emails, contacts, webhooks, deliveries and idempotency
keys are its own: \`sandbox emails\`, \`sandbox wait\` and \`sandbox deliveries\` show them with
--workspace <wrk_id> (or MAILROOM_WORKSPACE). Workspaces last until the sandbox stops or \`sandbox workspace delete\`
removes them; --data saves them all. A sandbox holds at most 1,000.

Examples:
  $ mailroom sandbox workspace create --name "worker 1"
  $ ws=$(mailroom sandbox workspace create --json) && export MAILROOM_API_KEY=$(jq -r .apiKey <<<"$ws") MAILROOM_WORKSPACE=$(jq -r .workspaceId <<<"$ws")`,
    )
    .action(verb(ctx, () => import('./workspace-create.run.js'), (flags: SandboxWorkspaceCreateOptions): SandboxWorkspaceCreateOptions => flags));
  workspace
    .command('delete')
    .description('delete a workspace `sandbox workspace create` made, with its keys, emails and webhooks (a test run\'s teardown)')
    .argument('<wrk_id>', 'the workspace id, as `sandbox workspace create` printed it')
    .addHelpText(
      'after',
      `${where} Its keys are refused from then on, its pending webhook deliveries and scheduled emails
stop, and a \`sandbox wait\` on it ends (exit 4). --data saves the deletion. The sandbox's first
workspace (its ready key's) cannot be deleted, and an unknown id is not found: both exit 4. Nothing
is asked: the sandbox is for tests.

Examples:
  $ mailroom sandbox workspace delete wrk_123
  $ mailroom sandbox workspace delete "$(jq -r .workspaceId <<<"$ws")" -q`,
    )
    .action(verb(ctx, () => import('./workspace-delete.run.js'), (_flags: Record<string, never>, [id]): SandboxWorkspaceDeleteOptions => ({ id: id as string })));

  sandbox
    .command('email')
    .description('show one caught email: its fields and text, or only its HTML, text or JSON')
    .argument('<id>', 'the email id (trs_…), as `sandbox emails` lists it')
    .option('--html', 'print only the HTML body')
    .option('--text', 'print only the text body')
    .option('--checks', "run `mailroom lint`'s checks on it (size, links, images, text, title, preheader, placeholders); exit 10 on a finding at or above --fail-on")
    .addOption(new Option('--fail-on <severity>', 'with --checks: the lowest severity that fails (error, warning or info; default error)').choices(SEVERITIES).argParser(choiceParser('--fail-on', SEVERITIES)))
    .addHelpText(
      'after',
      `${where} --json prints the stored email as JSON (also the default when piped).

Examples:
  $ mailroom sandbox email trs_123
  $ mailroom sandbox email trs_123 --html > email.html
  $ mailroom sandbox email trs_123 --checks --fail-on warning`,
    )
    .action(verb(ctx, () => import('./email.run.js'), (flags: Omit<SandboxEmailOptions, 'id'>, [id]): SandboxEmailOptions => ({ ...flags, id: id as string })));

  const deliveries = sandbox
    .command('deliveries')
    .description('list the webhook delivery attempts of a running sandbox (each retry is one), newest last')
    .addOption(new Option('--last <n>', 'only the newest n (on a terminal the default is the newest 50)').argParser(parseIntegerOption('--last', 1)))
    .addOption(new Option('--all', 'every attempt, also on a terminal (piped output always has every one)').conflicts('last'))
    .addHelpText(
      'after',
      `${where}${scoped} --json prints every attempt with every field, the signed body and signature included.
A delivery to a host off this machine is listed as "not delivered" with why (see sandbox --allow-remote-webhooks).

Examples:
  $ mailroom sandbox deliveries --last 10
  $ mailroom sandbox deliveries --json | jq -r '.items[] | select(.error) | .id'
  $ mailroom sandbox deliveries resend dlv_123`,
    )
    .action(verb(ctx, () => import('./deliveries.run.js')));

  deliveries
    .command('resend')
    .description("send a delivery's exact bytes again to its webhook, signed with its current token, as a new delivery")
    .argument('<id>', 'the delivery id (dlv_…), as `sandbox deliveries` lists it')
    .addHelpText(
      'after',
      `${where} The inbox's Resend button does the same.

Examples:
  $ mailroom sandbox deliveries resend dlv_123`,
    )
    .action(verb(ctx, () => import('./resend.run.js'), (_flags: Record<string, never>, [id]): SandboxResendOptions => ({ id: id as string })));

  sandbox
    .command('open')
    .description("print the URL of a running sandbox's inbox; --browser also opens it")
    .argument('[id]', 'an email id: its page instead of the list')
    .option('--browser', 'open the URL in the default browser')
    .addHelpText(
      'after',
      `${where} --browser uses $BROWSER when set, else the system's opener (xdg-open, open, start).

Examples:
  $ mailroom sandbox open
  $ mailroom sandbox open trs_123 --browser`,
    )
    .action(verb(ctx, () => import('./open.run.js'), (flags: Omit<SandboxOpenOptions, 'id'>, [id]): SandboxOpenOptions => ({ ...flags, id })));
}
