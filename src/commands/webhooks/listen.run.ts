import type { CommandContext } from '../context.js';
import { MailroomError, QuietExit, usageError } from '../../errors.js';
import { untilStopped } from '../../until-stopped.js';
import type { ForwardResult } from '../../webhook/forward.js';
import type { EventName } from '../../schema/index.js';
import type { Delivery } from '../../webhook/listener.js';
import { count, figure } from '../../plural.js';
import { parseEvents } from '../../input/events.js';
import { checkForwardUrl, forwardsToItself, forward, forwardableHeaders } from '../../webhook/forward.js';
import { checkOutputs } from '../../output/targets.js';
import { parseMaxAge } from '../../webhook/max-age.js';
import { resolveSigningToken } from '../shared/webhook-signing-token.js';
import { registerWebhook, registrationToken } from '../shared/webhook-registration.js';
import { startListener } from '../../webhook/listener.js';
import { JournalWriter, journalHeaders, journalBody, REFUSED_TOTAL_LIMIT } from '../../webhook/delivery-journal.js';
import { deliveryLine, deliveryRecord } from '../../webhook/shown-delivery.js';
import { outputMode, palette } from '../../output/index.js';
import { oneLine } from '../../output/one-line.js';
import { exposedHostWarning } from '../../config/url.js';
import { shellQuote } from '../shared/command-line.js';
import { formatLines, linesFor } from '../../webhook/replay.js';
import { writeTokenEnv } from '../../webhook/token-env-file.js';
import { execApp } from '../../webhook/exec-app.js';
import { TOKEN_ENV } from '../../webhook/token.js';
import { revealOnce } from '../../secrets.js';
import { notice, noticeLine } from '../../output/notice.js';

/** What a 503 asks the sender to wait before retrying (the service's own retries back off further). */
const RETRY_AFTER_S = 5;
/**
 * Bytes printed on stdout and not yet taken by its reader (`| less` left on its first page) past
 * which deliveries are answered 503 rather than printed: the lines would pile up in memory.
 */
const OUTPUT_BACKLOG = 256 * 1024;
const UNREAD_OUTPUT = 'stdout is not being read (the lines printed so far wait for their reader); retry later';
/** How long an app started with --exec has to start listening before refused forwards count as failed, and how often they are tried meanwhile. */
const APP_START_GRACE_MS = 10_000;
const APP_START_RETRY_MS = 100;

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
  writeEnv?: string;
  exec?: string;
  forwardQueue: number;
  stopTimeout: number;
  maxAge?: string;
}

export async function run(flags: WebhooksListenOptions, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  const forwardTo = flags.forwardTo === undefined ? undefined : checkForwardUrl(flags.forwardTo);
  if (forwardTo && forwardsToItself(forwardTo, flags.host, flags.port)) {
    throw usageError(`--forward-to ${forwardTo} is this listener (port ${flags.port}): each delivery would be forwarded to itself`, ['forward to your app, on another port']);
  }
  const only = flags.events === undefined ? undefined : new Set<string>(parseEvents([flags.events]));
  if (flags.journal !== undefined) {
    // Deliveries are printed on stdout: a journal there would interleave with them.
    checkOutputs({ cwd: ctx.cwd, inputs: [], outputs: [{ flag: '--journal', path: flags.journal }], io: ctx.io });
  }
  const maxAgeMs = flags.maxAge === undefined ? undefined : parseMaxAge(flags.maxAge);

  if (flags.exec !== undefined && flags.exec.trim() === '') throw usageError('--exec: the command to start your app is empty');
  // Without it the app would get the token and never a delivery.
  if (flags.exec !== undefined && forwardTo === undefined) throw usageError('--exec starts your app; add --forward-to with the URL it receives webhooks on (e.g. http://localhost:3000/webhooks)');
  const { token, webhook, created } = flags.register
    ? { ...(await registrationToken(flags, ctx)), webhook: undefined }
    : { ...(await resolveSigningToken(flags, ctx, 'to verify deliveries')), created: false };
  if (created && globals.quiet && flags.writeEnv === undefined && flags.exec === undefined) {
    throw usageError('-q would discard the new webhook token (it is shown only once): add --write-env <file> or --exec <command>, or pass --token-file');
  }
  if (flags.writeEnv !== undefined) await writeTokenEnv(flags.writeEnv, token, ctx.cwd);

  const journal = flags.journal === undefined ? undefined : await JournalWriter.open(flags.journal);
  if (journal) ctx.cleanups?.push(() => journal.close());
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

  // Deliveries accepted for forwarding, in journal order; those not yet forwarded: waiting, plus
  // the one under way; those the app did not take (no connection, or not a 2xx answer).
  const accepted: Delivery[] = [];
  const waiting: Delivery[] = [];
  const failed: Delivery[] = [];
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
  // With --exec, the app may not listen yet when the first deliveries come: until it has had
  // APP_START_GRACE_MS to start, a refused connection is tried again rather than counted as failed.
  let appStartingUntil = flags.exec === undefined ? 0 : Number.POSITIVE_INFINITY;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      abortForward.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
  const forwardWaiting = async () => {
    while (!stopping && waiting.length > 0) {
      const d = waiting.shift() as Delivery;
      const send = () => forward(forwardTo as string, d.body as Buffer, forwardableHeaders(d.headers), { timeoutMs, signal: abortForward.signal });
      let result = await send();
      while (result.status === undefined && result.error?.startsWith('connection refused') && Date.now() < appStartingUntil && !abortForward.signal.aborted) {
        await pause(APP_START_RETRY_MS);
        if (!abortForward.signal.aborted) result = await send();
      }
      if (abortForward.signal.aborted) {
        waiting.unshift(d);
        return;
      }
      reserved -= 1;
      if (result.status === undefined || result.status < 200 || result.status >= 300) failed.push(d);
      print(d, { forward: result });
    }
  };

  /** Runs before the answer: a 200 leaves here only once the delivery is in the journal. */
  const settle = async (d: Delivery): Promise<Delivery> => {
    let out = d;
    let holds = false;
    if (!mode.quiet && ctx.io.out.writableLength > OUTPUT_BACKLOG) {
      // Printed lines nobody reads must not pile up in memory: the service retries a 503.
      warnOnce('output', noticeLine('warning', 'stdout is not being read: deliveries are answered 503 (the service retries them) until it is'));
      out = { ...d, status: 503, retryAfter: RETRY_AFTER_S, reason: UNREAD_OUTPUT };
    } else if (forwardable(d)) {
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
        warnOnce('refused', noticeLine('warning', `refused requests have filled their ${REFUSED_TOTAL_LIMIT / 1048576} MiB of the journal; further ones are not journalled`));
        return out;
      }
      refusedJournalled += size;
    }
    const { line, error } = await journal.append(entry);
    if (!error) return { ...out, journalLine: line };
    warnOnce('journal', noticeLine('warning', `cannot write the journal ${flags.journal}: ${error.message} (deliveries are answered 503 until it works again)`));
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
      // Its line would wait behind the others nobody reads: the journal and the stop line count it.
      if (d.reason === UNREAD_OUTPUT) return;
      if (d.status === 200 && d.event?.event === 'TESTING_CONNECTION') return print(d, { note: 'connection test; not forwarded' });
      if (!forwardable(d) || d.status !== 200) return print(d);
      accepted.push(d);
      waiting.push(d);
      if (!working) worker = work();
    },
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE') throw usageError(`--port: ${flags.host}:${flags.port} is already in use`, ['pick another port, or --port 0 for a free one']);
    if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') throw usageError(`--host: cannot listen on ${flags.host}`);
    throw new MailroomError('unexpected', `cannot start the listener: ${err.message}`, { cause: err });
  });

  const registration = flags.register
    ? await registerWebhook(listener.url, token, only && ([...only] as EventName[]), ctx).catch(async (err: unknown) => {
        await listener.close();
        throw err;
      })
    : undefined;
  if (registration && !globals.quiet) ctx.io.err.write(`Registered webhook ${registration.id} delivering to ${listener.url}; deleted on exit\n`);

  const appEnded = new AbortController();
  const stopped = untilStopped(ctx, { orOutputClosed: true, orEnded: appEnded.signal });
  const exposed = exposedHostWarning(flags.host, 'this listener');
  if (exposed) ctx.io.err.write(`${exposed}\n`);
  if (forwardTo && !journal && !globals.quiet) {
    notice(ctx.io.err, 'warning', 'without --journal, deliveries waiting to be forwarded are lost if the listener stops; a 200 then means received, not stored');
  }
  // A token made here is shown once, in the ready lines (the app needs it); masked everywhere after.
  const showReady = () => {
    // Once: in the JSON ready line for a script, else in the line a person reads.
    const also = flags.writeEnv === undefined ? '' : `, also in ${flags.writeEnv}`;
    const shown = !created ? '' : globals.json ? `; signing token in the ready line on stdout${also}` : `; signing token ${token} (shown once${also})`;
    if (!globals.quiet) ctx.io.err.write(`Ready: listening on ${listener.url}${forwardTo ? ` (forwarding to ${forwardTo})` : ''}${shown}; Ctrl-C to stop\n`);
    if (globals.json) {
      const ready = { ready: true, url: listener.url, ...(forwardTo ? { forwardTo } : {}), ...(registration ? { webhookId: registration.id } : {}), ...(created ? { token } : {}) };
      ctx.io.out.write(`${JSON.stringify(ready)}\n`);
    }
  };
  if (created) revealOnce(token, showReady);
  else showReady();
  // The app starts once deliveries can reach the listener, with the token it verifies them with.
  const app = flags.exec === undefined ? undefined : execApp(flags.exec, { ...ctx.env, [TOKEN_ENV]: token }, ctx.io.err, flags.stopTimeout);
  if (app) {
    appStartingUntil = Date.now() + APP_START_GRACE_MS;
    // Whatever ends this command, the app does not outlive it (stop() does nothing once it has exited).
    ctx.cleanups?.push(() => app.stop(0));
  }
  void app?.exited.then(() => {
    appStartingUntil = 0;
    appEnded.abort();
  });
  if (webhook && !globals.quiet) {
    const mismatch = deliversElsewhere(webhook.url, listener.url);
    if (mismatch) notice(ctx.io.err, 'warning', `webhook ${webhook.id} delivers to ${oneLine(webhook.url)}, ${mismatch}; deliveries will not reach this listener`);
  }

  const why = await stopped;
  await registration?.remove();
  await listener.close();
  // A forward under way may finish until the deadline; nothing new starts.
  stopping = true;
  const deadline = setTimeout(() => abortForward.abort(), flags.stopTimeout);
  await worker;
  clearTimeout(deadline);
  // The app goes after its last forward (it may take --stop-timeout to end, then it is killed).
  await app?.stop(flags.stopTimeout);
  await journal?.close();
  if (!globals.quiet) printStopped(ctx, { received, accepted, failed, waiting, journal: journal?.path, forwardTo, events: only, token: replayToken(flags, webhook?.id, created) });
  if (why === 'ended' && app) {
    const ended = await app.exited;
    const how = ended.error ?? (ended.signal ? `was killed by ${ended.signal}` : `exited with code ${ended.code}`);
    if (ended.error !== undefined || ended.code !== 0) throw new MailroomError('unexpected', `your app (--exec) ${ended.error === undefined ? how : `could not start: ${how}`}; the listener stopped with it`);
    if (!globals.quiet) ctx.io.err.write(`Your app (--exec) ${how}; the listener stopped with it\n`);
  }
  // Ctrl-C exits 130 like every command; SIGTERM (a supervisor's stop) and a closed stdout exit 0.
  if (why === 'interrupted') throw new QuietExit(130);
}

interface StopReport {
  received: number;
  /** Every delivery accepted for forwarding this run, in journal order. */
  accepted: readonly Delivery[];
  failed: readonly Delivery[];
  waiting: readonly Delivery[];
  journal: string | undefined;
  forwardTo: string | undefined;
  events: ReadonlySet<string> | undefined;
  /** How the replay finds the signing token (`--webhook wh_…`, `--token-file …`), or a note when it cannot say. */
  token: { args: string[] } | { note: string };
}

/**
 * The last lines: what was received, and what the app did not take (forwards that failed, and
 * those never made): lost, or in the journal with the command that forwards exactly those, named
 * by their journal lines, with the same event filter.
 */
function printStopped(ctx: CommandContext, s: StopReport): void {
  const { received, failed, waiting, journal, forwardTo } = s;
  const requests = `${count(received, 'request')} received`;
  const parts = [...(failed.length > 0 ? [`${figure(failed.length)} failed to forward`] : []), ...(waiting.length > 0 ? [`${figure(waiting.length)} not forwarded`] : [])];
  if (parts.length === 0) {
    ctx.io.err.write(`Stopped: ${requests}\n`);
    return;
  }
  if (!journal) {
    ctx.io.err.write(`Stopped: ${requests}; ${parts.join(', ')}; lost (no --journal)\n`);
    return;
  }
  const among = [...s.accepted].filter((d) => d.journalLine !== undefined).sort((a, b) => a.journalLine! - b.journalLine!) as Array<Delivery & { journalLine: number }>;
  const wanted = new Set([...failed, ...waiting].map((d) => d.journalLine).filter((l): l is number => l !== undefined));
  const replay = [
    'mailroom webhooks replay --journal',
    shellQuote(journal),
    '--lines',
    formatLines(linesFor(among.map((d) => ({ line: d.journalLine })), wanted)),
    ...(s.events ? ['--event', [...s.events].join(',')] : []),
    '--forward-to',
    shellQuote(forwardTo as string),
    ...('args' in s.token ? s.token.args : []),
  ];
  ctx.io.err.write(`Stopped: ${requests}; ${parts.join(', ')}; still in the journal\n  to forward them: ${replay.join(' ')}\n`);
  if ('note' in s.token) ctx.io.err.write(`  ${s.token.note}\n`);
}

/** Where `webhooks replay` finds the token this listener verified with. */
function replayToken(flags: WebhooksListenOptions, webhookId: string | undefined, created: boolean): StopReport['token'] {
  if (webhookId !== undefined) return { args: ['--webhook', webhookId] };
  if (flags.tokenFile !== undefined && flags.tokenFile !== '-') return { args: ['--token-file', shellQuote(flags.tokenFile)] };
  // --token-file reads the MAILROOM_WEBHOOK_TOKEN line of an env file.
  if (flags.writeEnv !== undefined) return { args: ['--token-file', shellQuote(flags.writeEnv)] };
  if (created) return { note: '(with MAILROOM_WEBHOOK_TOKEN set to the signing token shown at start)' };
  if (flags.token === undefined) return { args: [] }; // MAILROOM_WEBHOOK_TOKEN, which replay reads too
  return { note: '(with the same signing token: MAILROOM_WEBHOOK_TOKEN, --token-file or --token)' };
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
