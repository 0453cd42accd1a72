import type { Command } from 'commander';
import type { Context, GlobalOptions } from '../context.js';
import type { SendFlags } from '../input/flags.js';

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

export function register(parent: Command, ctx: Context): void {
  parent
    .command('send')
    .description('send one email: raw HTML, a stored template, or a React email component rendered locally')
    .option('--from <address>', 'sender: address or "Name <address>" (raw)')
    .option('--from-name <name>', 'sender display name (raw)')
    .option('--to <address>', 'recipient address')
    .option('--subject <text>', 'subject line (raw)')
    .option('--html <html>', 'HTML body (raw)')
    .option('--html-file <path|->', 'read the HTML body from a file or stdin (raw)')
    .option('--text <text>', 'plain-text body; generated from the HTML when omitted (raw)')
    .option('--text-file <path|->', 'read the plain-text body from a file or stdin (raw)')
    .option('--preview-text <text>', 'inbox preview text (raw)')
    .option('--reply-to <address>', 'reply-to address (raw)')
    .option('--property <key=value>', 'contact property, repeatable (raw)', collect)
    .option('--template <name>', 'send the stored template of this name')
    .option('--var <key=value>', 'template variable, repeatable', collect)
    .option('--vars <json>', 'template variables as a JSON object')
    .option('--vars-file <path|->', 'template variables from a JSON file')
    .option('--react <file.tsx|jsx>', 'render this React email component locally and send its HTML')
    .option('--props <json>', 'props for the --react component, as a JSON object')
    .option('--track-clicks', 'track clicks (default on)')
    .option('--no-track-clicks', 'do not track clicks')
    .option('--track-opens', 'track opens (default: on for templates, off for raw)')
    .option('--no-track-opens', 'do not track opens')
    .option('--group-by <id>', 'analytics grouping identifier')
    .option('--send-at <time>', 'schedule: ISO 8601 with a zone, or +30m, +2h, +3d (at most 90 days ahead)')
    .option('--idempotency-key <key>', 'duplicate-send guard (default: a new UUID per send)')
    .option('--file <path|->', 'the whole email as a JSON object (raw or templated); flags override its fields')
    .option('--dry-run', 'validate and print the exact request body; send nothing')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom send --from you@example.com --to a@example.com --subject Hi --html '<p>Hi!</p>'
  $ mailroom send --from 'Acme <ops@example.com>' --to a@example.com --subject Report --html-file report.html --send-at +2h
  $ mailroom send --template welcome --to a@example.com --var name=Ada --var plan=pro
  $ mailroom send --react emails/Welcome.tsx --props '{"name":"Ada"}' --from you@example.com --to a@example.com --subject Welcome
  $ echo '{"template":"hi","to":"a@example.com"}' | mailroom send --file - --dry-run

Every send carries an idempotency key, so a retried request never sends twice.
Prints the email (id, status, ...) on a terminal, the API's email object as JSON when piped or with --json.`,
    )
    .action(async (flags: SendFlags, cmd: Command) => {
      await run(flags, cmd.optsWithGlobals<GlobalOptions>(), ctx);
    });
}

/** Validates everything locally (nothing is sent on bad input), then sends once with an idempotency key. */
export async function run(flags: SendFlags, globals: GlobalOptions, ctx: Context): Promise<void> {
  const { checkFlagConflicts, loadSources, buildEmailPayload, validateEmail } = await import('../input/flags.js');
  checkFlagConflicts(flags);
  let rendered: { html: string; text: string } | undefined;
  if (flags.react !== undefined) {
    const { parseJsonObject } = await import('../input/sources.js');
    const props = flags.props === undefined ? {} : parseJsonObject(flags.props, '--props');
    const { renderReactEmail } = await import('../input/react.js');
    rendered = await renderReactEmail(flags.react, props, ctx.cwd);
  }
  const loaded = await loadSources(flags, ctx.cwd, ctx.io.in);
  const now = new Date();
  const body = buildEmailPayload(flags, loaded, { now, renderedHtml: rendered?.html });
  // The rendered plain text rides along unless the user gave their own.
  if (rendered && body.text === undefined) body.text = rendered.text;
  const email = validateEmail(body, now);

  if (flags.dryRun) {
    if (!globals.quiet) (await import('../output/index.js')).printJson(ctx, email);
    return;
  }
  const { connect } = await import('../client.js');
  const { transport } = await connect(ctx, globals);
  try {
    const [{ sendEmail }, { UnexpectedResponseError }] = await Promise.all([import('../api/emails.js'), import('../api/request.js')]);
    const { email: result } = await sendEmail(transport, email, { signal: ctx.signal }).catch((err: unknown) => {
      // The API took the email; a retry with a fresh key would send it twice.
      if (err instanceof UnexpectedResponseError && email.idempotencyKey) {
        err.hints.push(`the API answered ${err.status}, so the email was most likely accepted: to retry without sending it twice, pass --idempotency-key ${email.idempotencyKey}`);
      }
      throw err;
    });
    const out = await import('../output/index.js');
    const mode = out.outputMode(ctx, globals);
    if (mode.quiet) return;
    if (mode.format === 'json') {
      out.printJson(ctx, result);
      if (result.warning) ctx.io.err.write(`warning: ${result.warning}\n`);
    } else {
      await out.printKeyValues(ctx, [
        ['id', result.id ?? result.messageId],
        ['status', result.status],
        ['to', result.to],
        ['type', result.type],
        ['from', result.from],
        ['subject', result.subject],
        ['template', result.template],
        ['group', result.groupBy],
        ['send at', email.sendAt],
        ['idempotency key', email.idempotencyKey],
        ['warning', result.warning],
      ]);
    }
  } finally {
    await transport.close();
  }
}
