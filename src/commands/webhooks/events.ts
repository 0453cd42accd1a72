import type { Command } from 'commander';
import type { Context, Globals } from '../../context.js';

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
    .action(async (_opts: unknown, cmd: Command) => run(cmd.optsWithGlobals<Globals>(), ctx));
}

export async function run(globals: Globals, ctx: Context): Promise<void> {
  const [{ EVENTS }, out] = await Promise.all([import('../../schema/events.js'), import('../../output/index.js')]);
  const rows = Object.entries(EVENTS).map(([event, meaning]) => ({ event, meaning }));
  const mode = out.outputMode(ctx, globals);
  if (mode.quiet) return;
  if (mode.format === 'json') out.printJson(ctx, rows);
  else await out.printTable(ctx, rows, [{ header: 'EVENT', value: (r) => r.event }, { header: 'MEANING', value: (r) => r.meaning, kind: 'text' }]);
}
