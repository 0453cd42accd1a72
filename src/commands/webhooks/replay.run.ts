import type { CommandContext } from '../context.js';
import { MailroomError, interruptedError } from '../../errors.js';
import { count, figure } from '../../plural.js';
import { formatLines, linesFor, parseLines, parseSince, selectEntries, replayRequest } from '../../webhook/replay.js';
import { normalizeEnvelope } from '../../schema/index.js';
import { parseEvents } from '../../input/events.js';
import { checkForwardUrl, forward } from '../../webhook/forward.js';
import { resolveSigningToken } from '../shared/webhook-signing-token.js';
import { readJournal } from '../../webhook/delivery-journal.js';
import { deliveryLine, deliveryRecord } from '../../webhook/shown-delivery.js';
import { outputMode, palette } from '../../output/index.js';

export interface WebhooksReplayOptions {
  journal: string;
  since?: string;
  event?: string;
  forwardTo: string;
  token?: string;
  tokenFile?: string;
  webhook?: string;
  lines?: string;
  /** This command line again, with the given options set (secrets left out). */
  rerun: (set: Record<string, string>) => string;
}

export async function run(flags: WebhooksReplayOptions, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  const since = flags.since === undefined ? undefined : parseSince(flags.since);
  const events = flags.event === undefined ? undefined : new Set<string>(parseEvents([flags.event]));
  const lines = flags.lines === undefined ? undefined : parseLines(flags.lines);
  const forwardTo = checkForwardUrl(flags.forwardTo);

  const { token } = await resolveSigningToken(flags, ctx, 'to re-sign the deliveries');
  const entries = selectEntries(await readJournal(flags.journal), { since, events, lines });
  if (entries.length === 0) {
    if (!globals.quiet) ctx.io.err.write(`Nothing to replay: no accepted deliveries in ${flags.journal} match\n`);
    return;
  }
  const mode = outputMode(ctx, globals);
  const colors = await palette(mode.color);
  let failed = 0;
  let sent = 0;
  // What the app did not take: re-sent by their journal lines, never by time (a slow body is
  // journalled after a delivery that began later, so a time cut repeats one or drops another).
  const notTaken = new Set<number>();
  // stdout closed (`replay | head -1`): keep replaying, stop printing, rather than crash on EPIPE.
  let outClosed = false;
  ctx.io.out.on('error', () => (outClosed = true));
  for (const entry of entries) {
    if (ctx.signal.aborted) break;
    const { body, headers } = replayRequest(entry, token);
    const result = await forward(forwardTo, body, headers, { method: entry.method, timeoutMs: globals.timeout ?? 30_000 });
    sent += 1;
    const ok = result.status !== undefined && result.status >= 200 && result.status < 300;
    if (!ok) {
      failed += 1;
      notTaken.add(entry.line);
    }
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
  if (!globals.quiet) ctx.io.err.write(`Replayed ${figure(sent)} of ${count(entries.length, 'delivery')} to ${forwardTo}: ${figure(sent - failed)} ok, ${figure(failed)} failed\n`);
  for (const entry of entries.slice(sent)) notTaken.add(entry.line);
  const again = () => `  ${flags.rerun({ '--lines': formatLines(linesFor(entries, notTaken)) })}`;
  if (sent < entries.length) {
    // Ctrl-C: the delivery under way was let finish; exit 130 like every command, saying where to pick up.
    throw interruptedError(`replayed ${figure(sent)} of ${count(entries.length, 'delivery')}${failed > 0 ? ` (${figure(failed)} failed)` : ''}`, [
      failed > 0 ? 'to replay the rest and the failed ones:' : 'to replay the rest:',
      again(),
    ]);
  }
  if (failed > 0) {
    throw new MailroomError('partial', `${figure(failed)} of ${count(sent, 'replayed delivery', 'replayed deliveries')} failed`, { hints: ['see the lines above for what your app answered; to re-send only those:', again()] });
  }
}
