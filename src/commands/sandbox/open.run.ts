import type { CommandContext } from '../context.js';
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
  const admin = await ctx.sandboxAdmin();
  const root = admin.root;
  // Only a URL that answers is printed: a wrong port fails here, not in the browser.
  await admin.call('GET', paths.sandboxEmails(new URLSearchParams({ limit: '0' })));
  let url = `${root}/`;
  if (id !== undefined) {
    const res = await admin.call('GET', paths.sandboxEmail(id));
    if (res.status === 404) throw new MailroomError('rejected', `no email ${id} in the sandbox at ${root}`);
    url = `${root}${paths.sandboxInbox(id)}`;
  }
  if (!globals.quiet) ctx.io.out.write(`${url}\n`);
  if (flags.browser) {
    await openInBrowser(url, ctx.env);
  }
}
