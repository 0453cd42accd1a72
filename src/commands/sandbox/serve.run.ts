import type { CommandContext } from '../context.js';
import { SANDBOX_DEFAULT_PORT } from '../../config/sandbox-default.js';
import { exposedHostWarning } from '../../config/url.js';
import { QuietExit, usageError } from '../../errors.js';
import { untilStopped } from '../../until-stopped.js';
import { startSandbox, loadConfigFile, SandboxConfigError } from '../../sandbox/index.js';
import { checkOutputs } from '../../output/targets.js';
import { reveal } from '../../secrets.js';
import { recordedSandbox, recordSandbox, sandboxAddressDir, type SandboxAddress } from '../../config/sandbox-address.js';
import { fsReason } from '../../files.js';
import { sandboxBanner } from '../shared/sandbox-banner.js';
import { notice } from '../../output/notice.js';

export interface SandboxServeOptions {
  port?: number;
  host?: string;
  data?: string;
  config?: string;
  monthlyLimit?: number;
  rateLimit?: number;
  retain?: number;
  errorRate?: number;
  dropRate?: number;
  lostRate?: number;
  latency?: number;
  latencyBefore?: number;
  faultSeed?: number;
  allowRemoteWebhooks?: boolean;
}

/** Starts the sandbox, prints how to use it, and serves until SIGINT/SIGTERM; then saves `--data`. */
export async function run(flags: SandboxServeOptions, ctx: CommandContext): Promise<void> {
  // The server's own --api-key and --json share their names with the global options.
  const opts = { ...flags, ...ctx.globals };
  const isSetupError = (err: unknown): err is Error => err instanceof SandboxConfigError;
  const say = (line: string) => {
    if (!opts.quiet) ctx.io.err.write(`${line}\n`);
  };
  if (opts.data !== undefined) {
    checkOutputs({ cwd: ctx.cwd, inputs: opts.config === undefined ? [] : [{ flag: '--config', path: opts.config }], outputs: [{ flag: '--data', path: opts.data }], io: ctx.io });
  }
  try {
    const config = opts.config === undefined ? {} : await loadConfigFile(opts.config);
    if (opts.monthlyLimit !== undefined) config.monthlyLimit = opts.monthlyLimit;
    if (opts.rateLimit !== undefined) config.rateLimit = opts.rateLimit;
    if (opts.retain !== undefined) config.retain = opts.retain;
    const faults = { ...config.faults };
    if (opts.errorRate !== undefined) faults.errorRate = opts.errorRate;
    if (opts.dropRate !== undefined) faults.dropRate = opts.dropRate;
    if (opts.lostRate !== undefined) faults.lostRate = opts.lostRate;
    if (opts.latency !== undefined) faults.latencyMs = opts.latency;
    if (opts.latencyBefore !== undefined) faults.latencyBeforeMs = opts.latencyBefore;
    if (opts.faultSeed !== undefined) faults.seed = opts.faultSeed;
    // The seed orders the drawn faults: with no rate to draw, it would be ignored without a word.
    if (opts.faultSeed !== undefined && !faults.errorRate && !faults.dropRate && !faults.lostRate) throw usageError(`--fault-seed needs --error-rate, --drop-rate or --lost-rate${opts.config === undefined ? '' : ` (or a rate in --config's faults)`}`);
    config.faults = faults;
    if (opts.allowRemoteWebhooks) config.deliveries = { ...config.deliveries, allowRemote: true };

    const host = opts.host ?? '127.0.0.1';
    const exposed = exposedHostWarning(host, 'this sandbox and its API key');
    if (exposed) say(exposed);
    const port = opts.port ?? SANDBOX_DEFAULT_PORT;
    // On a fixed port, a restart without --api-key or --data takes the key and workspace of the
    // sandbox last run there: terminals that exported them keep working (docs/sandbox-guide.md).
    const remembered = port !== 0 && opts.apiKey === undefined && opts.data === undefined ? recordedSandbox(ctx.env, port) : undefined;
    const sandbox = await startSandbox({
      port,
      host,
      apiKey: opts.apiKey ?? remembered?.apiKey,
      ...(remembered ? { workspaceId: remembered.workspaceId } : {}),
      dataFile: opts.data,
      config,
      log: opts.quiet ? undefined : (line) => ctx.io.err.write(`${line}\n`),
    });
    const stopped = untilStopped(ctx);
    const recorded = port !== 0 && record(ctx, { port, baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, workspaceId: sandbox.workspaceId, pid: process.pid, startedAt: new Date().toISOString() });

    // The sandbox's key is shown at start, like a newly created key: that is how one uses it.
    reveal(sandbox.apiKey);
    const banner = {
      ...sandbox,
      data: opts.data,
      anyTerminal: recorded ? `eval "$(mailroom sandbox env${port === SANDBOX_DEFAULT_PORT ? '' : ` --base-url ${sandbox.baseUrl}`})"` : undefined,
      kept: remembered && remembered.apiKey === sandbox.apiKey ? `(the key and workspace of the sandbox last run on port ${port}: terminals pointed at it keep working)` : undefined,
    };
    // As wide as the terminal it is read on, at most (the key whole: it is copied from here).
    for (const line of sandboxBanner(banner, ctx.io.isStderrTTY ? ctx.io.errColumns : undefined)) say(line);
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

/** Leaves the sandbox's address in the state directory for `sandbox env`; a failure is said, not fatal. */
function record(ctx: CommandContext, address: SandboxAddress): boolean {
  try {
    recordSandbox(ctx.env, address);
    return true;
  } catch (err) {
    if (!ctx.globals.quiet) notice(ctx.io.err, 'note', `cannot record the sandbox's address for \`sandbox env\` in ${sandboxAddressDir(ctx.env)}: ${fsReason(err, 'write')}`);
    return false;
  }
}
