import { sandboxWorkspace, unknownWorkspace } from '../../api/sandbox-admin.js';
import type { CommandContext } from '../context.js';
import { MailroomError, usageError } from '../../errors.js';
import { parseEvents } from '../../input/events.js';
import { isEmailAddress } from '../../schema/index.js';
import { paths } from '../../api/paths.js';
import { printJson } from '../../output/print.js';

export interface SandboxTriggerOptions {
  event: string;
  email?: string;
}

/** `sandbox trigger`: POST /_sandbox/events, then print the envelope the sandbox delivered. */
export async function run(opts: SandboxTriggerOptions, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  if (opts.event.includes(',')) throw usageError(`one event at a time: ${opts.event}`);
  const [event] = parseEvents([opts.event]);
  if (opts.email !== undefined && !isEmailAddress(opts.email)) throw usageError(`--email ${opts.email} is not an email address`);
  const admin = await ctx.sandboxAdmin();
  const base = admin.root;
  const workspace = sandboxWorkspace(ctx.settings());
  const body = { event, ...(opts.email === undefined ? {} : { email: opts.email }), ...(workspace === undefined ? {} : { workspace }) };
  const res = await admin.call('POST', paths.sandboxEvents(), body);
  if (res.status === 404 && workspace !== undefined) throw unknownWorkspace(base, workspace);
  if (res.status === 404) throw new MailroomError('rejected', `${base} is not a mailroom sandbox (no /_sandbox/events)`);
  const envelope = (res.body as { event?: unknown } | undefined)?.event;
  if (typeof envelope !== 'object' || envelope === null) throw new MailroomError('rejected', `${base} answered 200 without the event it fired: not a mailroom sandbox?`);
  if (globals.quiet) return;
  if (globals.json || !ctx.io.isStdoutTTY) {
    printJson(ctx, envelope);
    return;
  }
  ctx.io.err.write(`Fired ${event} in the sandbox at ${base}; subscribed webhooks receive:\n`);
  ctx.io.out.write(`${JSON.stringify(envelope, null, 2)}\n`);
}
