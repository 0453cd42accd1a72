import type { CommandContext } from '../../client.js';
import { sandboxCall, sandboxRoot } from '../../api/sandbox-admin.js';
import { MailroomError } from '../../errors.js';
import { openInBrowser } from '../shared/open-browser.js';
import { paths } from '../../api/paths.js';

export interface SandboxOpenOptions {
  id: string | undefined;
  browser?: boolean;
}

export async function run(flags: SandboxOpenOptions, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  const { id } = flags;
  const root = sandboxRoot(ctx);
  // Only a URL that answers is printed: a wrong port fails here, not in the browser.
  await sandboxCall(root, 'GET', paths.sandboxEmails(new URLSearchParams({ limit: '0' })), ctx);
  let url = `${root}/`;
  if (id !== undefined) {
    const res = await sandboxCall(root, 'GET', paths.sandboxEmail(id), ctx);
    if (res.status === 404) throw new MailroomError('rejected', `no email ${id} in the sandbox at ${root}`);
    url = `${root}${paths.sandboxInbox(id)}`;
  }
  if (!globals.quiet) ctx.io.out.write(`${url}\n`);
  if (flags.browser) {
    await openInBrowser(url, ctx.env);
  }
}
