import type { CommandContext } from '../context.js';
import { recordedSandboxes, sandboxAddressDir } from '../../config/sandbox-address.js';
import { MailroomError, usageError } from '../../errors.js';
import { sandboxTakesKey } from '../../transport/sandbox-admin.js';
import { reveal } from '../../secrets.js';

export type SandboxEnvOptions = Record<string, never>;

/**
 * Prints the `export` line that points a shell at the running sandbox, for
 * `eval "$(mailroom sandbox env)"`: from the address `mailroom sandbox` recorded in the state
 * directory, only once that sandbox answers with that key. Nothing is pointed anywhere otherwise.
 */
export async function run(_opts: SandboxEnvOptions, ctx: CommandContext): Promise<void> {
  const wanted = ctx.globals.baseUrl?.replace(/\/+$/, '');
  const recorded = recordedSandboxes(ctx.env).filter((a) => wanted === undefined || a.baseUrl === wanted);
  const live = [];
  for (const address of recorded) {
    const probe = await ctx.api({ apiKey: address.apiKey, origin: `the sandbox recorded at ${address.baseUrl}`, baseUrl: address.baseUrl });
    if (await sandboxTakesKey(probe, ctx.signal)) live.push(address);
  }
  const where = sandboxAddressDir(ctx.env);
  if (live.length === 0) {
    const what = wanted === undefined ? 'no running sandbox' : `no running sandbox at ${wanted}`;
    throw new MailroomError('connection', `${what} recorded in ${where}: nothing to point this shell at`, {
      hints: ['start one in another terminal: mailroom sandbox (on a fixed port: --port 0 records nothing)'],
    });
  }
  if (live.length > 1) {
    throw usageError(`${live.length} sandboxes are running: ${live.map((a) => a.baseUrl).join(', ')}`, [`pick one: mailroom sandbox env --base-url ${live[0]!.baseUrl}`]);
  }
  const a = live[0]!;
  // The sandbox's own key, printed on purpose (it is what the eval sets), as its banner does.
  reveal(a.apiKey);
  // The export line even when stdout is a pipe: that is how eval "$(...)" reads it. JSON only when asked.
  if (ctx.globals.json) ctx.io.out.write(`${JSON.stringify({ baseUrl: a.baseUrl, apiKey: a.apiKey, workspaceId: a.workspaceId })}\n`);
  else ctx.io.out.write(`export MAILROOM_BASE_URL=${a.baseUrl} MAILROOM_API_KEY=${a.apiKey} MAILROOM_WORKSPACE=${a.workspaceId}\n`);
  if (!ctx.globals.quiet) ctx.io.err.write(`mailroom: the sandbox at ${a.baseUrl} (pid ${a.pid}, workspace ${a.workspaceId}); with eval, this shell's mailroom commands go there\n`);
}
