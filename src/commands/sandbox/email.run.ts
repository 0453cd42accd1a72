import type { CommandContext } from '../context.js';
import type { SandboxEmail } from '../../sandbox/public-types.js';
import { terminalText } from '../../output/one-line.js';
import { MailroomError, usageError } from '../../errors.js';
import { outputMode, printJson, printKeyValues } from '../../output/index.js';
import type { SandboxAdmin } from '../../transport/sandbox-admin.js';
import { paths } from '../../api/paths.js';
import type { LintReport } from '../../lint/formats.js';
import { lintFailed, printLintReport } from '../shared/lint-report.js';

export interface SandboxEmailOptions {
  id: string;
  html?: boolean;
  text?: boolean;
  checks?: boolean;
  failOn?: 'error' | 'warning' | 'info';
}

export async function run(flags: SandboxEmailOptions, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  const { id } = flags;
  const picked = [flags.html && '--html', flags.text && '--text', flags.checks && '--checks', globals.json && !flags.checks && '--json'].filter(Boolean);
  if (picked.length > 1) throw usageError(`${picked.join(' and ')} cannot be used together: pick one`);
  if (flags.failOn !== undefined && !flags.checks) throw usageError('--fail-on needs --checks');
  const admin = await ctx.sandboxAdmin();
  const root = admin.root;
  if (flags.checks) return checks(admin, id, flags.failOn ?? 'error', ctx);
  const res = await admin.call('GET', paths.sandboxEmail(id));
  if (res.status === 404) throw new MailroomError('rejected', `no email ${id} in the sandbox at ${root}`, { hints: ['list them with: mailroom sandbox emails'] });
  const email = (res.body as { email: SandboxEmail }).email;
  if (globals.quiet) return;
  if (flags.html || flags.text) {
    const body = flags.html ? email.html : email.text;
    ctx.io.out.write(body.endsWith('\n') ? body : `${body}\n`);
    return;
  }
  const inbox = `${root}/inbox/${encodeURIComponent(email.id)}`;
  if (outputMode(ctx, globals).format === 'json') return printJson(ctx, { ...email, inbox });
  await printKeyValues(ctx, [
    ['id', email.id],
    ['status', email.status],
    ['from', email.from],
    ['to', email.to],
    ['subject', email.subject],
    ['template', email.template],
    ['created', email.createdAt],
    ['send at', email.sendAt],
    ['inbox', inbox],
  ]);
  const text = terminalText(email.text);
  ctx.io.out.write(`\n${text.endsWith('\n') ? text : `${text}\n`}`);
}

/** The same report as `mailroom lint`, computed by the sandbox on the email as it was caught (the inbox's Checks tab shows it too). */
async function checks(admin: SandboxAdmin, id: string, failOn: string, ctx: CommandContext): Promise<void> {
  const root = admin.root;
  const res = await admin.call('GET', paths.sandboxEmailChecks(id, failOn));
  if (res.status === 404) throw new MailroomError('rejected', `no email ${id} in the sandbox at ${root}`, { hints: ['list them with: mailroom sandbox emails'] });
  const report = res.body as LintReport;
  if (!ctx.globals.quiet) await printLintReport(report, undefined, ctx);
  if (!report.ok) throw lintFailed(report);
}
