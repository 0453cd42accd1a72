import type { Command } from 'commander';
import type { Context, Globals } from '../context.js';
import type { SendFlags } from '../input/flags.js';
import { repeatable } from './repeatable.js';
import { isCliError } from '../errors.js';
import type { RetryInfo } from '../transport/index.js';
import { oneLine } from '../output/one-line.js';

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
    .option('--property <key=value>', 'contact property, repeatable (raw)', repeatable)
    .option('--template <name>', 'send the stored template of this name')
    .option('--var <key=value>', 'template variable, repeatable', repeatable)
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
      await run(flags, cmd.optsWithGlobals<Globals>(), ctx, cmd);
    });
}

/** Validates everything locally (nothing is sent on bad input), then sends once with an idempotency key. */
export async function run(flags: SendFlags, globals: Globals, ctx: Context, cmd: Command): Promise<void> {
  const { checkFlagConflicts, loadSources, buildEmailPayload, validateEmail } = await import('../input/flags.js');
  checkFlagConflicts(flags);
  let rendered: { html: string; text: string } | undefined;
  if (flags.react !== undefined) {
    const { parseJsonObject } = await import('../input/sources.js');
    const props = flags.props === undefined ? {} : parseJsonObject(flags.props, '--props');
    const { renderReactEmail } = await import('../input/react.js');
    rendered = await renderReactEmail(flags.react, props, ctx.cwd);
  }
  const { stdinFor } = await import('../input/stdin.js');
  const loaded = await loadSources(flags, ctx.cwd, (what) => stdinFor(ctx, what));
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
  const { transport, settings } = await connect(ctx, globals);
  const key = email.idempotencyKey as string;
  try {
    const [{ clientOver }, { IdempotencyConflictError }, { failedBeforeSending }] = await Promise.all([
      import('../library/mailroom.js'),
      import('../api/errors.js'),
      import('../transport/errors.js'),
    ]);
    // The library's send (one implementation): the key above, the one retry policy, the same-email check.
    const client = clientOver(transport, { baseUrl: settings.baseUrl.value, apiKey: settings.apiKey?.value ?? '', workspaceId: undefined, maxRetries: settings.maxRetries.value, env: ctx.env });
    // Whether an attempt before the last one may have reached the API (its answer was a 5xx or lost).
    let reachedApi = false;
    const onRetry = (info: RetryInfo) => {
      reachedApi ||= info.status !== undefined ? info.status >= 500 : !failedBeforeSending(info.code);
    };
    const { email: result } = await client.emails.send(email, { signal: ctx.signal, onRetry }).catch(async (err: unknown) => {
      if (err instanceof IdempotencyConflictError) {
        err.hints.splice(0, err.hints.length, 'send this email with a new key (or without --idempotency-key: each send gets its own)');
        throw err;
      }
      const why = await mayHaveBeenSent(err, reachedApi);
      if (why !== undefined && isCliError(err)) {
        const stdin = [flags.file, flags.htmlFile, flags.textFile, flags.varsFile].includes('-') ? ' (with the same stdin)' : '';
        const set: Record<string, string> = { '--idempotency-key': key };
        if (flags.sendAt !== undefined && email.sendAt !== undefined) set['--send-at'] = email.sendAt;
        const { rerunCommand } = await import('./command-line.js');
        err.hints.push(`${why}: to retry without sending it twice, run${stdin}:`, `  ${rerunCommand(cmd, set)}`);
      }
      throw err;
    });
    const out = await import('../output/index.js');
    const mode = out.outputMode(ctx, globals);
    if (mode.quiet) return;
    if (mode.format === 'json') {
      // The key rides next to the API's answer: with it, a script can retry this exact send safely.
      out.printJson(ctx, { ...result, idempotencyKey: key });
      if (result.warning) ctx.io.err.write(`warning: ${oneLine(result.warning)}\n`);
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
        ['send at', email.sendAt, 'date'],
        ['idempotency key', key],
        ['warning', result.warning],
      ]);
    }
  } finally {
    await transport.close();
  }
}

/**
 * When a send failed after its request may have reached the API, the words for it; undefined when
 * it surely did not (refused connection, a 4xx verdict on every attempt).
 */
async function mayHaveBeenSent(err: unknown, reachedBefore: boolean): Promise<string | undefined> {
  const [{ UnexpectedResponseError }, errors] = await Promise.all([import('../api/request.js'), import('../transport/errors.js')]);
  if (err instanceof UnexpectedResponseError) return `the API answered ${err.status}, so the email was most likely accepted`;
  const reached =
    err instanceof errors.TimeoutError ||
    err instanceof errors.AbortedError ||
    (err instanceof errors.ApiError && err.status >= 500) ||
    (err instanceof errors.ConnectionError && !errors.failedBeforeSending(err.code));
  return reached || reachedBefore ? 'the email may have been sent' : undefined;
}
