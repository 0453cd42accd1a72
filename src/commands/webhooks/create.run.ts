import type { CommandContext } from '../context.js';
import { apiClient } from '../shared/api-client.js';
import { usageError } from '../../errors.js';
import { parseEvents } from '../../input/events.js';
import { printWebhook } from '../../output/resources.js';
import { createWebhookRequestSchema, describeIssues } from '../../schema/index.js';
import { refuseDiscardingSecret } from '../shared/secret-once.js';
import { checked } from '../../webhook/token.js';

export interface WebhooksCreateOptions {
  url: string;
  event?: string[];
  token?: string;
}

export async function run(opts: WebhooksCreateOptions, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  const events = parseEvents(opts.event);
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
  // The same rule as listen and verify (after the schema's, which names control characters): a token they would refuse must not be made.
  if (opts.token !== undefined) checked(opts.token, '--token');
  if (opts.token === undefined) {
    refuseDiscardingSecret({ quiet: globals.quiet, jsonFields: ctx.jsonFields }, 'webhook token', 'token', { quiet: 'give your own with --token, or drop -q', fields: 'give your own with --token' });
  }
  const hook = await (await apiClient(ctx)).webhooks.create(body.data, { signal: ctx.signal });
  await printWebhook(ctx, globals, hook, 'new');
  if (!globals.quiet && hook.token) ctx.io.err.write('This is the only time the token is shown in full: keep it with your receiver to verify deliveries.\n');
}
