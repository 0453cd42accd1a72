import type { CommandContext } from '../context.js';
import { paths } from '../../api/paths.js';
import { MailroomError, usageError } from '../../errors.js';
import { printJson } from '../../output/print.js';

export interface SandboxResendOptions {
  id: string;
}

/** `sandbox deliveries resend <dlv_id>`: POST /_sandbox/deliveries/<id>/resend, as the inbox's Resend button. */
export async function run(opts: SandboxResendOptions, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  if (!/^dlv_[A-Za-z0-9_-]+$/.test(opts.id)) throw usageError(`"${opts.id}" is not a delivery id (dlv_…, as sandbox deliveries lists it)`);
  const admin = await ctx.sandboxAdmin();
  const root = admin.root;
  const res = await admin.call('POST', paths.sandboxResend(opts.id), {});
  if (res.status === 404) throw new MailroomError('rejected', `no delivery ${opts.id} in the sandbox at ${root}`, { hints: ['list them with: mailroom sandbox deliveries'] });
  const answer = res.body as { resent: string; webhookId: string; event: string };
  if (globals.quiet) return;
  if (globals.json || !ctx.io.isStdoutTTY) {
    printJson(ctx, answer);
    return;
  }
  ctx.io.out.write(`Resent ${answer.resent} (${answer.event}) to webhook ${answer.webhookId} as a new delivery\n`);
}
