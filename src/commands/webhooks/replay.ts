import type { Command } from 'commander';
import type { Context, Globals } from '../../context.js';
import { CliError, interruptedError } from '../../errors.js';
import { count, noun } from '../../count.js';

export interface WebhooksReplayOptions {
  journal: string;
  since?: string;
  event?: string;
  forwardTo: string;
  token?: string;
  tokenFile?: string;
  webhook?: string;
}

export function register(parent: Command, ctx: Context): void {
  parent
    .command('replay')
    .description("re-send journalled deliveries to your app, in order, re-signed with the webhook's token")
    .requiredOption('--journal <file>', 'the journal written by webhooks listen --journal')
    .option('--since <time>', 'only deliveries received since: ISO 8601, or a span back from now (30m, 1h, 2d)')
    .option('--event <E,...>', 'only these events')
    .requiredOption('--forward-to <url>', 'your app: each delivery is POSTed here')
    .option('--token <wht_…>', "the listener's signing token (env MAILROOM_WEBHOOK_TOKEN); argv is visible to other local users: prefer the env or --token-file")
    .option('--token-file <path|->', 'read the signing token from a file, or - for stdin')
    .option('--webhook <wh_id>', 'fetch the signing token of this webhook from the API (needs an API key)')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom webhooks replay --journal deliveries.ndjson --webhook wh_123 --forward-to http://localhost:3000/webhooks
  $ mailroom webhooks replay --journal deliveries.ndjson --since 1h --event CONTACT_CREATED --forward-to http://localhost:3000/hook

Replays the deliveries the listener accepted (refused requests and connection tests are skipped), with
their exact body bytes and headers and a fresh signature over the body. Exit 0 when your app answered
2xx to every one; 7 when any failed (non-2xx answer or no connection), after trying them all;
130 on Ctrl-C (the delivery under way finishes; the message gives the --since for the rest).`,
    )
    .action(async (flags: WebhooksReplayOptions, cmd: Command) => {
      await run(flags, cmd.optsWithGlobals<Globals>(), ctx);
    });
}

export async function run(flags: WebhooksReplayOptions, globals: Globals, ctx: Context): Promise<void> {
  const { parseSince, selectEntries, replayRequest } = await import('../../webhook/replay.js');
  const { normalizeEnvelope } = await import('../../schema/index.js');
  const { parseEvents } = await import('../../input/events.js');
  const { checkForwardUrl, forward } = await import('../../webhook/forward.js');
  const since = flags.since === undefined ? undefined : parseSince(flags.since);
  const events = flags.event === undefined ? undefined : new Set<string>(parseEvents([flags.event]));
  const forwardTo = checkForwardUrl(flags.forwardTo);

  const { resolveSigningToken } = await import('./signing-token.js');
  const { token } = await resolveSigningToken(flags, globals, ctx, 'to re-sign the deliveries');
  const { readJournal } = await import('../../webhook/journal.js');
  const { deliveryLine, deliveryRecord } = await import('../../webhook/report.js');
  const entries = selectEntries(await readJournal(flags.journal), { since, events });
  if (entries.length === 0) {
    if (!globals.quiet) ctx.io.err.write(`Nothing to replay: no accepted deliveries in ${flags.journal} match\n`);
    return;
  }
  const { outputMode, palette } = await import('../../output/index.js');
  const mode = outputMode(ctx, globals);
  const colors = await palette(mode.color);
  let failed = 0;
  let sent = 0;
  // stdout closed (`replay | head -1`): keep replaying, stop printing, rather than crash on EPIPE.
  let outClosed = false;
  ctx.io.out.on('error', () => (outClosed = true));
  for (const entry of entries) {
    if (ctx.signal.aborted) break;
    const { body, headers } = replayRequest(entry, token);
    const result = await forward(forwardTo, body, headers, { method: entry.method, timeoutMs: globals.timeout ?? 30_000 });
    sent += 1;
    const ok = result.status !== undefined && result.status >= 200 && result.status < 300;
    if (!ok) failed += 1;
    if (globals.quiet || outClosed) continue;
    let parsed;
    try {
      parsed = normalizeEnvelope(JSON.parse(body.toString('utf8')));
    } catch {
      parsed = undefined;
    }
    const shown = { receivedAt: entry.receivedAt, path: entry.path, status: 200, verified: true, event: parsed, forward: result };
    ctx.io.out.write(mode.format === 'json' ? `${JSON.stringify(deliveryRecord(shown))}\n` : `${deliveryLine(shown, colors)}\n`);
  }
  if (!globals.quiet) ctx.io.err.write(`Replayed ${sent} of ${count(entries.length, 'delivery')} to ${forwardTo}: ${sent - failed} ok, ${failed} failed\n`);
  if (sent < entries.length) {
    // Ctrl-C: the delivery under way was let finish; exit 130 like every command, saying where to pick up.
    const next = (entries[sent] as { receivedAt: string }).receivedAt;
    throw interruptedError(`replayed ${sent} of ${count(entries.length, 'delivery')}${failed > 0 ? ` (${failed} failed)` : ''}`, [`to replay the rest, run the same command with --since ${next}`]);
  }
  if (failed > 0) throw new CliError('partial', `${failed} of ${sent} replayed ${noun(sent, 'delivery')} failed`, { hints: ['see the lines above for what your app answered'] });
}
