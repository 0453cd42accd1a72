import type { CommandContext } from '../context.js';
import type { SandboxEmail } from '../../sandbox/public-types.js';
import { sandboxWorkspace, unknownWorkspace } from '../../api/sandbox-admin.js';
import { MailroomError, usageError } from '../../errors.js';
import { printRows } from '../../output/index.js';
import { paths } from '../../api/paths.js';
import { figure } from '../../plural.js';

export interface SandboxWaitOptions {
  to?: string;
  subject?: string;
  count?: number;
}

/** How long `sandbox wait` waits without --timeout. */
export const DEFAULT_WAIT_MS = 10_000;
/** The longest wait a sandbox accepts (its GET /_sandbox/emails/wait). */
const MAX_WAIT_MS = 600_000;
/** What the long poll may take beyond its own timeout to answer (a loaded machine) before the call gives up. */
const ANSWER_GRACE_MS = 10_000;

/** Waits on the running sandbox's long poll (GET /_sandbox/emails/wait) and prints the emails, or exits 11 at --timeout. */
export async function run(flags: SandboxWaitOptions, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  // The sandbox reads an empty filter as none: `--to "$ADDR"` with ADDR unset would pass on any email.
  for (const [flag, value, what] of [['--to', flags.to, 'address'], ['--subject', flags.subject, 'text']] as const) {
    if (value !== undefined && value.trim() === '') throw usageError(`${flag} is empty: give the ${what} to wait for, or leave the option out`);
  }
  const admin = await ctx.sandboxAdmin();
  const root = admin.root;
  const count = flags.count ?? 1;
  const timeoutMs = globals.timeout ?? DEFAULT_WAIT_MS;
  if (timeoutMs > MAX_WAIT_MS) throw usageError(`--timeout must be at most ${MAX_WAIT_MS / 60_000}m for sandbox wait`);
  const query = new URLSearchParams({ count: String(count), timeoutMs: String(timeoutMs) });
  if (flags.to !== undefined) query.set('to', flags.to);
  if (flags.subject !== undefined) query.set('subject', flags.subject);
  const workspace = sandboxWorkspace(ctx.settings());
  if (workspace !== undefined) query.set('workspace', workspace);
  const { status, body } = await admin.call('GET', paths.sandboxWait(query), undefined, { timeoutMs: timeoutMs + ANSWER_GRACE_MS, answer: [400] });
  if (status === 404 && /was deleted while this wait was open$/.test(String((body as { message?: unknown } | undefined)?.message))) {
    // Nothing can be caught there any more: said at once rather than at --timeout (exit 11).
    throw new MailroomError('rejected', `workspace ${workspace} was deleted while waiting (sandbox workspace delete, or a test's teardown)`);
  }
  if (status === 404) throw unknownWorkspace(root, workspace);
  if (status === 400) {
    const { retain, message } = (body ?? {}) as { retain?: unknown; message?: unknown };
    // More than the sandbox keeps: refused before any wait, not answered at --timeout.
    if (typeof retain === 'number') {
      throw usageError(`--count ${count} is more emails than the sandbox keeps (--retain ${retain}): a wait for them could never see them all; wait for at most ${retain}, or start the sandbox with a larger --retain`);
    }
    throw usageError(`the sandbox refused the wait: ${typeof message === 'string' ? message : 'bad request'}`);
  }
  const { items, timedOut } = body as { items: SandboxEmail[]; timedOut: boolean };
  if (timedOut) {
    const what = [flags.to === undefined ? '' : ` to ${flags.to}`, flags.subject === undefined ? '' : ` with a subject containing ${JSON.stringify(flags.subject)}`].join('');
    const missing = count === 1 ? `no email${what} was caught` : `fewer than ${figure(count)} emails${what} were caught`;
    throw new MailroomError('not-caught', `${missing} within ${seconds(timeoutMs)} (${figure(items.length)} matching caught)`, {
      hints: ['see what was caught: mailroom sandbox emails'],
    });
  }
  await printRows(ctx, globals, items, [
    { header: 'ID', value: (e) => e.id },
    { header: 'STATUS', value: (e) => e.status },
    { header: 'TO', value: (e) => e.to, kind: 'text' },
    { header: 'SUBJECT', value: (e) => e.subject ?? `(template ${e.template})`, kind: 'text' },
    { header: 'CREATED', value: (e) => e.createdAt, kind: 'date' },
  ]);
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms} ms`;
}
