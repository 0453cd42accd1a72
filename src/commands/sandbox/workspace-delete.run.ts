import type { CommandContext } from '../context.js';
import { paths } from '../../api/paths.js';
import { MailroomError } from '../../errors.js';
import { outputMode, printJson } from '../../output/index.js';

export interface SandboxWorkspaceDeleteOptions {
  id: string;
}

/** Deletes a workspace `sandbox workspace create` made (DELETE /_sandbox/workspaces/<id>): a test run's teardown. */
export async function run(opts: SandboxWorkspaceDeleteOptions, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  // Checked (and refused, exit 2) before the sandbox is looked for: nothing is sent for a bad id.
  const path = paths.sandboxWorkspace(opts.id);
  const admin = await ctx.sandboxAdmin();
  const root = admin.root;
  const { status } = await admin.call('DELETE', path, {}, { answer: [409] });
  if (status === 404) throw new MailroomError('rejected', `no workspace ${opts.id} in the sandbox at ${root}`, { hints: ['list them with: mailroom sandbox workspace list'] });
  if (status === 409) {
    throw new MailroomError('rejected', `workspace ${opts.id} is the sandbox's first workspace (its ready key's) and cannot be deleted`, {
      hints: ['delete only the workspaces made with: mailroom sandbox workspace create'],
    });
  }
  if (globals.quiet) return;
  if (outputMode(ctx, globals).format === 'json') return printJson(ctx, { workspaceId: opts.id, isDeleted: true, baseUrl: root });
  ctx.io.out.write(`Deleted workspace ${opts.id} from the sandbox at ${root}: its keys are refused from now on\n`);
}
