import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Context, Globals } from '../context.js';
import { exposedHostWarning } from '../config/url.js';
import { CliError, QuietExit, usageError } from '../errors.js';
import { parseIntegerOption } from './options.js';
import { register as registerInspect, SANDBOX_DEFAULT_PORT, SANDBOX_DEFAULT_URL } from './sandbox-inspect.js';
import { untilStopped } from './until-stopped.js';

export { SANDBOX_DEFAULT_PORT, SANDBOX_DEFAULT_URL };

interface SandboxFlags {
  port?: number;
  host?: string;
  data?: string;
  config?: string;
  monthlyLimit?: number;
  rateLimit?: number;
  errorRate?: number;
  dropRate?: number;
  lostRate?: number;
  latency?: number;
  latencyBefore?: number;
}

function parseShare(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError(`${name} must be a number from 0 to 1`);
    return n;
  };
}

function parsePositive(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a positive number`);
    return n;
  };
}

export function register(parent: Command, ctx: Context): void {
  const sandbox = parent
    .command('sandbox')
    .description('run a local emulator of the whole API: no account, no real email')
    .addOption(
      new Option('--port <n>', `port to listen on; 0 picks a free one (default ${SANDBOX_DEFAULT_PORT})`).argParser(parseIntegerOption('--port', 0, 65535)),
    )
    .option('--host <host>', 'interface to listen on (default 127.0.0.1; anything else is reachable from other machines)')
    .option('--api-key <key>', 'secret of the ready API key (default: generated)')
    .option('--data <file>', 'keep state in this file across restarts (saved before each answer; survives a crash)')
    .option('--config <file>', 'JSON config: verifiedEmails, verifiedDomains, templates, monthlyLimit, rateLimit, faults, deliveries, webhooks')
    .addOption(new Option('--monthly-limit <n>', 'emails accepted per month before 403').argParser(parseIntegerOption('--monthly-limit', 0)))
    .addOption(new Option('--rate-limit <n>', 'requests per second per API key before 429').argParser(parsePositive('--rate-limit')))
    .addOption(new Option('--error-rate <share>', 'share of /v1 requests answered 503').argParser(parseShare('--error-rate')))
    .addOption(new Option('--drop-rate <share>', 'share of /v1 requests whose connection is dropped unanswered').argParser(parseShare('--drop-rate')))
    .addOption(new Option('--lost-rate <share>', 'share of /v1 requests done but never answered').argParser(parseShare('--lost-rate')))
    .addOption(new Option('--latency <ms>', 'delay each /v1 answer after the work is done (a client that times out may still have sent)').argParser(parseIntegerOption('--latency', 0, 60_000)))
    .addOption(new Option('--latency-before <ms>', 'delay each /v1 request before any work is done').argParser(parseIntegerOption('--latency-before', 0, 60_000)))
    .option('--json', 'print one line {"baseUrl","apiKey","workspaceId"} on stdout when ready')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom sandbox
  $ mailroom sandbox --port 0 --json --data sandbox.json
  $ export MAILROOM_BASE_URL=${SANDBOX_DEFAULT_URL} MAILROOM_API_KEY=<the key it prints>
  $ mailroom sandbox trigger CONTACT_CREATED --email ada@example.com`,
    )
    .action(async (flags: SandboxFlags, cmd: Command) => {
      await runSandbox({ ...flags, ...globals(cmd) }, ctx);
    });

  sandbox
    .command('trigger')
    .description('fire a webhook event in a running sandbox (POST /_sandbox/events)')
    .argument('<event>', 'CONTACT_CREATED, CONTACT_UPDATED, CONTACT_UNSUBSCRIBED, CONTACT_RESUBSCRIBED, CONTACT_DELETED or WORKSPACE_TEAM_MEMBER_JOINED')
    .option('--email <address>', 'the contact (or team member) the event is about')
    .addHelpText(
      'after',
      `
The sandbox is found at --base-url, else MAILROOM_BASE_URL, else ${SANDBOX_DEFAULT_URL}.

Examples:
  $ mailroom sandbox trigger CONTACT_CREATED --email ada@example.com
  $ mailroom sandbox trigger contact_unsubscribed --email ada@example.com --json
  $ mailroom sandbox trigger WORKSPACE_TEAM_MEMBER_JOINED --base-url http://127.0.0.1:5025`,
    )
    .action(async (event: string, flags: { email?: string }, cmd: Command) => {
      await runTrigger({ event, email: flags.email, ...globals(cmd) }, ctx);
    });

  registerInspect(sandbox, ctx);
}

function globals(cmd: Command): Globals {
  return cmd.optsWithGlobals<Globals>();
}

/** Starts the sandbox, prints how to use it, and serves until SIGINT/SIGTERM; then saves `--data`. */
export async function runSandbox(opts: SandboxFlags & Globals, ctx: Context): Promise<void> {
  const { startSandbox, loadConfigFile, SandboxConfigError } = await import('../sandbox/index.js');
  const isSetupError = (err: unknown): err is Error => err instanceof SandboxConfigError;
  const say = (line: string) => {
    if (!opts.quiet) ctx.io.err.write(`${line}\n`);
  };
  if (opts.data !== undefined) {
    const { checkOutputs } = await import('../output/targets.js');
    checkOutputs({ cwd: ctx.cwd, inputs: opts.config === undefined ? [] : [{ flag: '--config', path: opts.config }], outputs: [{ flag: '--data', path: opts.data }], io: ctx.io });
  }
  try {
    const config = opts.config === undefined ? {} : await loadConfigFile(opts.config);
    if (opts.monthlyLimit !== undefined) config.monthlyLimit = opts.monthlyLimit;
    if (opts.rateLimit !== undefined) config.rateLimit = opts.rateLimit;
    const faults = { ...config.faults };
    if (opts.errorRate !== undefined) faults.errorRate = opts.errorRate;
    if (opts.dropRate !== undefined) faults.dropRate = opts.dropRate;
    if (opts.lostRate !== undefined) faults.lostRate = opts.lostRate;
    if (opts.latency !== undefined) faults.latencyMs = opts.latency;
    if (opts.latencyBefore !== undefined) faults.latencyBeforeMs = opts.latencyBefore;
    config.faults = faults;

    const host = opts.host ?? '127.0.0.1';
    const exposed = exposedHostWarning(host, 'this sandbox and its API key');
    if (exposed) say(exposed);
    const port = opts.port ?? SANDBOX_DEFAULT_PORT;
    const sandbox = await startSandbox({ port, host, apiKey: opts.apiKey, dataFile: opts.data, config, log: opts.quiet ? undefined : (line) => ctx.io.err.write(`${line}\n`) });
    const stopped = untilStopped(ctx);

    // The sandbox's key is shown at start, like a newly created key: that is how one uses it.
    const { reveal } = await import('../secrets.js');
    reveal(sandbox.apiKey);
    say(`mailroom sandbox listening on ${sandbox.baseUrl}`);
    say(`  workspace  ${sandbox.workspaceId}`);
    say(`  API key    ${sandbox.apiKey}`);
    say(`  inbox      ${sandbox.baseUrl}/  (mailroom sandbox emails, sandbox open --browser)`);
    if (opts.data) say(`  data       ${opts.data}`);
    say('');
    say('Point mailroom (or any script) at it:');
    say(`  export MAILROOM_BASE_URL=${sandbox.baseUrl} MAILROOM_API_KEY=${sandbox.apiKey} MAILROOM_WORKSPACE=${sandbox.workspaceId}`);
    say('Press Ctrl-C to stop.');
    // Last, so a script that waits for this line finds the sandbox ready and its banner written.
    if (opts.json) ctx.io.out.write(`${JSON.stringify({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, workspaceId: sandbox.workspaceId })}\n`);

    const why = await stopped;
    await sandbox.close();
    say(opts.data ? `sandbox stopped; state saved to ${opts.data}` : 'sandbox stopped');
    // Ctrl-C exits 130 like every command; SIGTERM (a supervisor's stop) exits 0.
    if (why === 'interrupted') throw new QuietExit(130);
  } catch (err) {
    if (isSetupError(err)) throw usageError(err.message);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw usageError(`port ${opts.port ?? SANDBOX_DEFAULT_PORT} is already in use`, ['pass --port 0 to pick a free port']);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw usageError(`cannot listen on host ${opts.host}`);
    throw err;
  }
}

interface TriggerOptions extends Globals {
  event: string;
  email?: string;
}

/** `sandbox trigger`: POST /_sandbox/events, then print the envelope the sandbox delivered. */
export async function runTrigger(opts: TriggerOptions, ctx: Context): Promise<void> {
  const [{ isEmailAddress }, { parseEvents }] = await Promise.all([import('../schema/index.js'), import('../input/events.js')]);
  if (opts.event.includes(',')) throw usageError(`one event at a time: ${opts.event}`);
  const [event] = parseEvents([opts.event]);
  if (opts.email !== undefined && !isEmailAddress(opts.email)) throw usageError(`--email ${opts.email} is not an email address`);
  const { sandboxRoot, sandboxCall } = await import('./sandbox-inspect.js');
  const base = sandboxRoot(opts, ctx);
  const res = await sandboxCall(base, 'POST', '/_sandbox/events', opts, ctx, opts.email === undefined ? { event } : { event, email: opts.email });
  if (res.status === 404) throw new CliError('rejected', `${base} is not a mailroom sandbox (no /_sandbox/events)`);
  const envelope = (res.body as { event?: unknown } | undefined)?.event;
  if (typeof envelope !== 'object' || envelope === null) throw new CliError('rejected', `${base} answered 200 without the event it fired: not a mailroom sandbox?`);
  if (opts.quiet) return;
  if (opts.json || !ctx.io.isStdoutTTY) {
    ctx.io.out.write(`${JSON.stringify(envelope)}\n`);
    return;
  }
  ctx.io.err.write(`Fired ${event} in the sandbox at ${base}; subscribed webhooks receive:\n`);
  ctx.io.out.write(`${JSON.stringify(envelope, null, 2)}\n`);
}
