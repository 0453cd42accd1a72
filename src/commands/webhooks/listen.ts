import type { Command } from 'commander';
import { Option } from 'commander';
import type { Context, Globals } from '../../context.js';
import { CliError, QuietExit, usageError } from '../../errors.js';
import { parseIntegerOption } from '../options.js';
import { untilStopped } from '../until-stopped.js';
import type { ForwardResult } from '../../webhook/forward.js';
import type { EventName } from '../../schema/index.js';
import type { Delivery } from '../../webhook/listener.js';
import { count } from '../../count.js';
import { oneLine } from '../../output/one-line.js';

export interface WebhooksListenOptions {
  port: number;
  host: string;
  token?: string;
  tokenFile?: string;
  webhook?: string;
  forwardTo?: string;
  events?: string;
  journal?: string;
  maxBody: number;
  register?: boolean;
  forwardQueue: number;
  stopTimeout: number;
  maxAge?: string;
}

const DEFAULT_PORT = 4242;
const DEFAULT_MAX_BODY = 1024 * 1024;
const DEFAULT_FORWARD_QUEUE = 1000;
const DEFAULT_STOP_TIMEOUT_MS = 5000;
/** What a 503 asks the sender to wait before retrying (the service's own retries back off further). */
const RETRY_AFTER_S = 5;

export function register(parent: Command, ctx: Context): void {
  parent
    .command('listen')
    .description('receive webhook deliveries locally: verify, print, journal and forward them to your app')
    .addOption(new Option('--port <n>', 'port to listen on (0 picks a free one)').default(DEFAULT_PORT).argParser(parseIntegerOption('--port', 0, 65535)))
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--token <wht_…>', 'the webhook signing token (env MAILROOM_WEBHOOK_TOKEN); argv is visible to other local users: prefer the env or --token-file')
    .option('--token-file <path|->', 'read the signing token from a file, or - for stdin')
    .option('--webhook <wh_id>', "fetch the signing token of this webhook from the API (needs an API key)")
    .option('--forward-to <url>', 'POST each verified delivery, byte for byte with its headers, to your app')
    .option('--events <E,...>', 'print and forward only these events (others are still answered 200 and journalled)')
    .option('--journal <file>', 'append every request received to this NDJSON file (for webhooks replay)')
    .option('--register', 'against a sandbox: create a webhook delivering here (its events: --events, else all), delete it on exit')
    .addOption(new Option('--max-body <bytes>', 'refuse bodies over this size with 413').default(DEFAULT_MAX_BODY).argParser(parseIntegerOption('--max-body', 1)))
    .addOption(new Option('--forward-queue <n>', 'deliveries waiting to be forwarded before new ones get 503 (the service retries them)').default(DEFAULT_FORWARD_QUEUE).argParser(parseIntegerOption('--forward-queue', 1)))
    .addOption(new Option('--stop-timeout <ms>', 'on Ctrl-C/SIGTERM, how long a forward under way may finish').default(DEFAULT_STOP_TIMEOUT_MS).argParser(parseIntegerOption('--stop-timeout', 0)))
    .option('--max-age <duration>', 'refuse deliveries whose envelope time is older (e.g. 5m): a captured delivery sent again')
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
missing or wrong, with the likely cause (wrong token, or a body re-serialised on the way). With
--journal, a 200 is sent only once the delivery is on disk; forwarding follows, one at a time, and a
full --forward-queue answers 503 so the service retries. On stop, deliveries not yet forwarded stay
in the journal and the command to replay them is printed.
TESTING_CONNECTION is answered 200 and printed, never forwarded. Lines go to stdout: readable on a
terminal, NDJSON when piped. "Ready: listening on …" goes to stderr; with --json the first stdout line
is {"ready":true,"url":…}. Ctrl-C stops it.`,
    )
    .action(async (flags: WebhooksListenOptions, cmd: Command) => {
      await run(flags, cmd.optsWithGlobals<Globals>(), ctx);
    });
}

export async function run(flags: WebhooksListenOptions, globals: Globals, ctx: Context): Promise<void> {
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
  const { parseMaxAge } = await import('../../webhook/max-age.js');
  const maxAgeMs = flags.maxAge === undefined ? undefined : parseMaxAge(flags.maxAge);

  const { resolveSigningToken } = await import('./signing-token.js');
  const registering = flags.register ? await import('./register.js') : undefined;
  const { token, webhook } = registering
    ? { token: await registering.registrationToken(flags, globals, ctx), webhook: undefined }
    : await resolveSigningToken(flags, globals, ctx, 'to verify deliveries');

  const { startListener } = await import('../../webhook/listener.js');
  const { forward, forwardableHeaders } = await import('../../webhook/forward.js');
  const { JournalWriter, journalHeaders, journalBody, REFUSED_TOTAL_LIMIT } = await import('../../webhook/journal.js');
  const { deliveryLine, deliveryRecord } = await import('../../webhook/report.js');
  const journal = flags.journal === undefined ? undefined : await JournalWriter.open(flags.journal);
  if (journal) ctx.cleanups?.push(() => journal.close());
  const { outputMode, palette } = await import('../../output/index.js');
  const mode = outputMode(ctx, globals);
  const colors = await palette(mode.color);
  const timeoutMs = globals.timeout ?? 30_000;
  const warned = new Set<string>();
  const warnOnce = (key: string, line: string) => {
    if (warned.has(key)) return;
    warned.add(key);
    ctx.io.err.write(`${line}\n`);
  };
  let received = 0;
  let refusedJournalled = 0;

  const forwardable = (d: Delivery) =>
    forwardTo !== undefined && d.status === 200 && d.body !== undefined && d.event !== undefined && d.event.event !== 'TESTING_CONNECTION' && (!only || only.has(d.event.event));
  const print = (d: Delivery, extra: { forward?: ForwardResult; note?: string } = {}) => {
    if (mode.quiet || (d.event && only && !only.has(d.event.event) && d.event.event !== 'TESTING_CONNECTION')) return;
    const line = { receivedAt: d.receivedAt, path: d.path, status: d.status, verified: d.verified, event: d.event, reason: d.reason, ...extra };
    ctx.io.out.write(mode.format === 'json' ? `${JSON.stringify(deliveryRecord(line))}\n` : `${deliveryLine(line, colors)}\n`);
  };

  // Deliveries accepted for forwarding and not yet forwarded: waiting, plus the one under way.
  const waiting: Delivery[] = [];
  let reserved = 0;
  let stopping = false;
  const abortForward = new AbortController();
  let worker: Promise<void> = Promise.resolve();
  let working = false;
  const work = async () => {
    working = true;
    try {
      await forwardWaiting();
    } finally {
      working = false;
    }
  };
  const forwardWaiting = async () => {
    while (!stopping && waiting.length > 0) {
      const d = waiting.shift() as Delivery;
      const result = await forward(forwardTo as string, d.body as Buffer, forwardableHeaders(d.headers), { timeoutMs, signal: abortForward.signal });
      if (abortForward.signal.aborted) {
        waiting.unshift(d);
        return;
      }
      reserved -= 1;
      print(d, { forward: result });
    }
  };

  /** Runs before the answer: a 200 leaves here only once the delivery is in the journal. */
  const settle = async (d: Delivery): Promise<Delivery> => {
    let out = d;
    let holds = false;
    if (forwardable(d)) {
      if (reserved >= flags.forwardQueue) {
        out = { ...d, status: 503, retryAfter: RETRY_AFTER_S, reason: `the forward queue is full (${count(reserved, 'delivery')} waiting for ${forwardTo}, --forward-queue); retry later` };
      } else {
        reserved += 1;
        holds = true;
      }
    }
    if (!journal) return out;
    const accepted = out.status === 200;
    const entry = {
      receivedAt: out.receivedAt,
      method: out.method,
      path: out.path,
      headers: journalHeaders(out.headers),
      ...journalBody(out.body, accepted),
      status: out.status,
      verified: out.verified,
      ...(out.event ? { event: out.event.event } : {}),
      ...(out.reason ? { reason: out.reason } : {}),
    };
    if (!accepted) {
      // Junk must not fill the disk: refused requests are journalled up to a total, then counted only.
      const size = JSON.stringify(entry).length;
      if (refusedJournalled + size > REFUSED_TOTAL_LIMIT) {
        warnOnce('refused', `warning: refused requests have filled their ${REFUSED_TOTAL_LIMIT / 1048576} MiB of the journal; further ones are not journalled`);
        return out;
      }
      refusedJournalled += size;
    }
    const error = await journal.append(entry);
    if (!error) return out;
    warnOnce('journal', `warning: cannot write the journal ${flags.journal}: ${error.message} (deliveries are answered 503 until it works again)`);
    if (!accepted) return out;
    if (holds) reserved -= 1;
    return { ...out, status: 503, retryAfter: RETRY_AFTER_S, reason: 'the listener cannot store this delivery right now; retry later' };
  };

  const listener = await startListener({
    host: flags.host,
    port: flags.port,
    token,
    maxBody: flags.maxBody,
    ...(maxAgeMs === undefined ? {} : { maxAgeMs }),
    settle,
    onDelivery: (d) => {
      received += 1;
      if (d.status === 200 && d.event?.event === 'TESTING_CONNECTION') return print(d, { note: 'connection test; not forwarded' });
      if (!forwardable(d) || d.status !== 200) return print(d);
      waiting.push(d);
      if (!working) worker = work();
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
  const { exposedHostWarning } = await import('../../config/url.js');
  const exposed = exposedHostWarning(flags.host, 'this listener');
  if (exposed) ctx.io.err.write(`${exposed}\n`);
  if (forwardTo && !journal && !globals.quiet) {
    ctx.io.err.write('warning: without --journal, deliveries waiting to be forwarded are lost if the listener stops; a 200 then means received, not stored\n');
  }
  if (!globals.quiet) ctx.io.err.write(`Ready: listening on ${listener.url}${forwardTo ? ` (forwarding to ${forwardTo})` : ''}; Ctrl-C to stop\n`);
  if (webhook && !globals.quiet) {
    const mismatch = deliversElsewhere(webhook.url, listener.url);
    if (mismatch) ctx.io.err.write(`warning: webhook ${webhook.id} delivers to ${oneLine(webhook.url)}, ${mismatch}; deliveries will not reach this listener\n`);
  }
  if (globals.json) ctx.io.out.write(`${JSON.stringify({ ready: true, url: listener.url, ...(forwardTo ? { forwardTo } : {}), ...(registration ? { webhookId: registration.id } : {}) })}\n`);

  const why = await stopped;
  await registration?.remove();
  await listener.close();
  // A forward under way may finish until the deadline; nothing new starts.
  stopping = true;
  const deadline = setTimeout(() => abortForward.abort(), flags.stopTimeout);
  await worker;
  clearTimeout(deadline);
  await journal?.close();
  if (!globals.quiet) await printStopped(ctx, { received, waiting, journal: journal?.path, forwardTo, webhookId: webhook?.id });
  // Ctrl-C exits 130 like every command; SIGTERM (a supervisor's stop) and a closed stdout exit 0.
  if (why === 'interrupted') throw new QuietExit(130);
}

/** The last line: what was received, and what was left unforwarded (lost, or in the journal with the command that forwards it). */
async function printStopped(ctx: Context, s: { received: number; waiting: readonly Delivery[]; journal: string | undefined; forwardTo: string | undefined; webhookId: string | undefined }): Promise<void> {
  const { received, waiting, journal, forwardTo } = s;
  const left = waiting.length;
  const requests = `${count(received, 'request')} received`;
  if (left === 0) {
    ctx.io.err.write(`Stopped: ${requests}\n`);
    return;
  }
  if (!journal) {
    ctx.io.err.write(`Stopped: ${requests}; ${left} not forwarded and lost (no --journal)\n`);
    return;
  }
  const { shellQuote } = await import('../command-line.js');
  const since = (waiting[0] as Delivery).receivedAt;
  const replay = ['mailroom webhooks replay --journal', shellQuote(journal), '--since', since, '--forward-to', shellQuote(forwardTo as string), ...(s.webhookId ? ['--webhook', s.webhookId] : [])];
  ctx.io.err.write(`Stopped: ${requests}; ${left} not forwarded, still in the journal\n  to forward them: ${replay.join(' ')}\n`);
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
