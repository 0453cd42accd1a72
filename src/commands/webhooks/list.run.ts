import type { CommandContext } from '../context.js';
import { apiClient } from '../shared/api-client.js';
import { printWebhooks } from '../../output/resources.js';
import { figure } from '../../plural.js';

export async function run(_opts: Record<string, never>, ctx: CommandContext): Promise<void> {
  const page = await (await apiClient(ctx)).webhooks.list({ signal: ctx.signal });
  await printWebhooks(ctx, ctx.globals, page);
  if (page.hasMore && !ctx.globals.quiet) ctx.io.err.write(`The API says more webhooks exist than the ${figure(page.items.length)} listed; it offers no way to fetch them.\n`);
}
