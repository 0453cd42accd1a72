import type { Command } from 'commander';
import type { Context, GlobalOptions } from '../../context.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('events')
    .description('the webhook event names and what each means (no network, no API key)')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom webhooks events
  $ mailroom webhooks events --json | jq -r '.[].event'`,
    )
    .action(async (_opts: unknown, cmd: Command) => run(cmd.optsWithGlobals<GlobalOptions>(), ctx));
}

export async function run(globals: GlobalOptions, ctx: Context): Promise<void> {
  const [{ EVENTS }, out] = await Promise.all([import('../../schema/events.js'), import('../../output/records.js')]);
  const rows = Object.entries(EVENTS).map(([event, meaning]) => ({ event, meaning }));
  const mode = out.viewMode(ctx, globals);
  if (mode === 'json') out.writeJson(ctx, rows);
  else if (mode === 'human') {
    await out.writeTable(ctx, [{ header: 'EVENT', value: (r: (typeof rows)[number]) => r.event }, { header: 'MEANING', value: (r: (typeof rows)[number]) => r.meaning }], rows, '');
  }
}
