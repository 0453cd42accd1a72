import type { Command } from 'commander';
import type { Context, GlobalOptions } from '../../context.js';
import { usageError } from '../../errors.js';
import { repeatable } from '../repeatable.js';
import { refuseQuietDiscard } from '../secret-once.js';

export interface WebhooksCreateOptions {
  url: string;
  event?: string[];
  token?: string;
}

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
delete mask it. Keep it with your receiver (mailroom webhooks verify/listen --token).`,
    )
    .action(async (opts: WebhooksCreateOptions, cmd: Command) => run(opts, cmd.optsWithGlobals<GlobalOptions>(), ctx));
}

export async function run(opts: WebhooksCreateOptions, globals: GlobalOptions, ctx: Context): Promise<void> {
  const { parseEvents } = await import('../../input/events.js');
  const events = parseEvents(opts.event);
  const { createWebhookRequestSchema, describeIssues } = await import('../../schema/index.js');
  const body = createWebhookRequestSchema.safeParse({ url: opts.url, events, ...(opts.token === undefined ? {} : { token: opts.token }) });
  if (!body.success) {
    const issue = body.error.issues[0]!;
    const field = String(issue.path[0] ?? '');
    // The URL is quoted only when the problem is its form: it may carry credentials or control characters.
    if (field === 'url') {
      const quoted = issue.code === 'custom' && (issue.params?.problem === 'scheme' || issue.params?.problem === 'not-a-url');
      throw usageError(quoted ? `--url: "${opts.url}" ${issue.message}` : `--url: ${issue.message}`);
    }
    // Never the token itself: it is a secret.
    if (field === 'token') throw usageError(issue.code === 'custom' ? `--token: ${issue.message}` : '--token: must be 8 to 256 characters');
    throw usageError(`invalid webhook: ${describeIssues(body.error.issues)}`);
  }
  if (opts.token === undefined) refuseQuietDiscard(globals.quiet, 'webhook token', 'give your own with --token, or drop -q');
  const { connect } = await import('../../client.js');
  const { transport } = await connect(ctx, globals);
  try {
    const [{ createWebhook }, { printWebhook }] = await Promise.all([import('../../api/webhooks.js'), import('./view.js')]);
    const hook = await createWebhook(transport, body.data, { signal: ctx.signal });
    await printWebhook(ctx, globals, hook, 'new');
    if (!globals.quiet && hook.token) ctx.io.err.write('This is the only time the token is shown in full: keep it with your receiver to verify deliveries.\n');
  } finally {
    await transport.close();
  }
}
