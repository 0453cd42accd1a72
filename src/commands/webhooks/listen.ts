import type { Command } from 'commander';
import { Option } from 'commander';
import type { Context, GlobalOptions } from '../../context.js';
import { CliError, usageError } from '../../errors.js';
import { parseIntegerOption } from '../../program.js';
import { untilStopped } from '../until-stopped.js';
import type { ForwardResult } from '../../webhook/forward.js';
import type { EventName } from '../../schema/index.js';

export interface WebhooksListenOptions {
  port: number;
  host: string;
  token?: string;
  webhook?: string;
  forwardTo?: string;
  events?: string;
  journal?: string;
  maxBody: number;
  register?: boolean;
}

const DEFAULT_PORT = 4242;
const DEFAULT_MAX_BODY = 1024 * 1024;

export function register(parent: Command, ctx: Context): void {
  parent
    .command('listen')
    .description('receive webhook deliveries locally: verify, print, journal and forward them to your app')
    .addOption(new Option('--port <n>', 'port to listen on (0 picks a free one)').default(DEFAULT_PORT).argParser(parseIntegerOption('--port', 0, 65535)))
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--token <wht_…>', 'the webhook signing token (env MAILROOM_WEBHOOK_TOKEN)')
    .option('--webhook <wh_id>', "fetch the signing token of this webhook from the API (needs an API key)")
    .option('--forward-to <url>', 'POST each verified delivery, byte for byte with its headers, to your app')
    .option('--events <E,...>', 'print and forward only these events (others are still answered 200 and journalled)')
    .option('--journal <file>', 'append every request received to this NDJSON file (for webhooks replay)')
    .option('--register', 'against a sandbox: create a webhook delivering here (its events: --events, else all), delete it on exit')
    .addOption(new Option('--max-body <bytes>', 'refuse bodies over this size with 413').default(DEFAULT_MAX_BODY).argParser(parseIntegerOption('--max-body', 1)))
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom webhooks listen --webhook wh_123 --forward-to http://localhost:3000/webhooks
  $ MAILROOM_WEBHOOK_TOKEN=wht_… mailroom webhooks listen --port 0 --journal deliveries.ndjson
  $ mailroom webhooks listen --token "$TOKEN" --events CONTACT_CREATED,CONTACT_DELETED | jq .data
  $ MAILROOM_BASE_URL=http://127.0.0.1:4025 mailroom webhooks listen --register --api-key sk_live_…

Each POST, on any path: the body is read raw (413 over --max-body), its X-Smashsend-Signature (or any
X-*-Signature) checked in constant time against the token; 200 when valid, 401 when the signature is
missing or wrong, with the likely cause (wrong token, or a body re-serialised on the way).
TESTING_CONNECTION is answered 200 and printed, never forwarded. Lines go to stdout: readable on a
terminal, NDJSON when piped. "Ready: listening on …" goes to stderr; with --json the first stdout line
is {"ready":true,"url":…}. Ctrl-C stops it.`,
    )
    .action(async (flags: WebhooksListenOptions, cmd: Command) => {
      await run(flags, cmd.optsWithGlobals<GlobalOptions>(), ctx);
    });
}

export async function run(flags: WebhooksListenOptions, globals: GlobalOptions, ctx: Context): Promise<void> {
  const { parseEvents } = await import('../../input/events.js');
  const { checkForwardUrl, forwardsToItself } = await import('../../webhook/forward.js');
  const forwardTo = flags.forwardTo === undefined ? undefined : checkForwardUrl(flags.forwardTo);
  if (forwardTo && forwardsToItself(forwardTo, flags.host, flags.port)) {
    throw usageError(`--forward-to ${forwardTo} is this listener (port ${flags.port}): each delivery would be forwarded to itself`, ['forward to your app, on another port']);
  }
  const only = flags.events === undefined ? undefined : new Set<string>(parseEvents([flags.events]));
  if (flags.journal !== undefined) {
    // Deliveries are printed on stdout: a journal there would interleave with them.
    const { checkOutputs } = await import('../../output/targets.js');
    checkOutputs({ cwd: ctx.cwd, inputs: [], outputs: [{ flag: '--journal', path: flags.journal }], io: ctx.io });
  }

  const { resolveSigningToken } = await import('./signing-token.js');
  const registering = flags.register ? await import('./register.js') : undefined;
  const { token, webhook } = registering
    ? { token: await registering.registrationToken(flags, globals, ctx), webhook: undefined }
    : await resolveSigningToken(flags, globals, ctx, 'to verify deliveries');

  const { startListener } = await import('../../webhook/listener.js');
  const { forward, forwardableHeaders } = await import('../../webhook/forward.js');
  const { JournalWriter, journalHeaders, encodeBody } = await import('../../webhook/journal.js');
  const { deliveryLine, deliveryRecord } = await import('../../webhook/report.js');
  const journal = flags.journal === undefined ? undefined : await JournalWriter.open(flags.journal);
  let journalWarned = false;
  const { outputMode, palette } = await import('../../output/index.js');
  const mode = outputMode(ctx, globals);
  const colors = await palette(mode.color);
  const timeoutMs = globals.timeout ?? 30_000;
  let received = 0;

  const listener = await startListener({
    host: flags.host,
    port: flags.port,
    token,
    maxBody: flags.maxBody,
    onDelivery: async (d) => {
      received += 1;
      const journalError = await journal?.append({
        receivedAt: d.receivedAt,
        method: d.method,
        path: d.path,
        headers: journalHeaders(d.headers),
        ...(d.body === undefined ? {} : encodeBody(d.body)),
        status: d.status,
        verified: d.verified,
        ...(d.event ? { event: d.event.event } : {}),
        ...(d.reason ? { reason: d.reason } : {}),
      });
      if (journalError && !journalWarned) {
        journalWarned = true;
        ctx.io.err.write(`warning: cannot write the journal ${flags.journal}: ${journalError.message} (deliveries are still answered)\n`);
      }
      if (d.event && only && !only.has(d.event.event) && d.event.event !== 'TESTING_CONNECTION') return;
      const shown = { receivedAt: d.receivedAt, path: d.path, status: d.status, verified: d.verified, event: d.event, reason: d.reason };
      let note: string | undefined;
      let forwarded: ForwardResult | undefined;
      if (d.status === 200 && d.event?.event === 'TESTING_CONNECTION') note = 'connection test; not forwarded';
      else if (d.status === 200 && forwardTo && d.body) forwarded = await forward(forwardTo, d.body, forwardableHeaders(d.headers), { timeoutMs });
      const line = { ...shown, forward: forwarded, note };
      if (mode.quiet) return;
      ctx.io.out.write(mode.format === 'json' ? `${JSON.stringify(deliveryRecord(line))}\n` : `${deliveryLine(line, colors)}\n`);
    },
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE') throw usageError(`--port: ${flags.host}:${flags.port} is already in use`, ['pick another port, or --port 0 for a free one']);
    if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') throw usageError(`--host: cannot listen on ${flags.host}`);
    throw new CliError('unexpected', `cannot start the listener: ${err.message}`, { cause: err });
  });

  const registration = registering
    ? await registering.registerWebhook(listener.url, token, only && ([...only] as EventName[]), globals, ctx).catch(async (err: unknown) => {
        await listener.close();
        throw err;
      })
    : undefined;
  if (registration && !globals.quiet) ctx.io.err.write(`Registered webhook ${registration.id} delivering to ${listener.url}; deleted on exit\n`);

  const stopped = untilStopped(ctx, { orOutputClosed: true });
  if (!globals.quiet) ctx.io.err.write(`Ready: listening on ${listener.url}${forwardTo ? ` (forwarding to ${forwardTo})` : ''}; Ctrl-C to stop\n`);
  if (webhook && !globals.quiet) {
    const mismatch = deliversElsewhere(webhook.url, listener.url);
    if (mismatch) ctx.io.err.write(`warning: webhook ${webhook.id} delivers to ${webhook.url}, ${mismatch}; deliveries will not reach this listener\n`);
  }
  if (globals.json) ctx.io.out.write(`${JSON.stringify({ ready: true, url: listener.url, ...(forwardTo ? { forwardTo } : {}), ...(registration ? { webhookId: registration.id } : {}) })}\n`);

  await stopped;
  await registration?.remove();
  await listener.close();
  if (!globals.quiet) ctx.io.err.write(`Stopped: ${received} request${received === 1 ? '' : 's'} received\n`);
}

/** Why a webhook's URL cannot reach the listener (another port, or a remote host), if it cannot. */
function deliversElsewhere(webhookUrl: string, listenerUrl: string): string | undefined {
  let target: URL;
  try {
    target = new URL(webhookUrl);
  } catch {
    return undefined;
  }
  const here = new URL(listenerUrl);
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  if (port !== here.port) return `but this listener is on port ${here.port}`;
  return undefined;
}
