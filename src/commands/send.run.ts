import type { Command } from 'commander';
import type { CommandContext } from './context.js';
import { isMailroomError } from '../errors.js';
import type { SendFlags } from '../input/send-flags.js';
import { IdempotencyConflictError } from '../api/call-errors.js';
import { apiClient } from './shared/api-client.js';
import { UnexpectedResponseError } from '../api/request.js';
import { checkFlagConflicts, loadSources, buildEmailPayload, validateEmail } from '../input/send-flags.js';
import { parseJsonObject } from '../input/sources.js';
import { renderReactEmail } from '../render/react-email.js';
import { stdinFor } from '../input/stdin.js';
import { rerunCommand } from './shared/command-line.js';
import { raisedTimeout } from './shared/transport-hints.js';
import * as out from '../output/index.js';
import { oneLine } from '../output/one-line.js';
import { notice } from '../output/notice.js';

export interface SendOptions {
  flags: SendFlags;
  /** The parsed command line: the hint after a send that may have gone out repeats it with its idempotency key. */
  command: Command;
}

/** Validates everything locally (nothing is sent on bad input), then sends once with an idempotency key. */
export async function run(opts: SendOptions, ctx: CommandContext): Promise<void> {
  const { flags, command: cmd } = opts;
  const { globals } = ctx;
  checkFlagConflicts(flags);
  let rendered: { html: string; text: string } | undefined;
  if (flags.react !== undefined) {
    const props = flags.props === undefined ? {} : parseJsonObject(flags.props, '--props');
    rendered = await renderReactEmail(flags.react, props, ctx.cwd);
  }
  const loaded = await loadSources(flags, ctx.cwd, (what) => stdinFor(ctx, what));
  const now = new Date();
  const body = buildEmailPayload(flags, loaded, { now, renderedHtml: rendered?.html });
  // The rendered plain text rides along unless the user gave their own.
  if (rendered && body.text === undefined) body.text = rendered.text;
  const email = validateEmail(body, now);

  if (flags.dryRun) {
    if (!globals.quiet) out.printJson(ctx, email);
    return;
  }
  const client = await apiClient(ctx);
  const key = email.idempotencyKey as string;
  // The library's send (one implementation): the key above, the one retry policy, the same-email
  // check, and the verdict on whether a failed send may have gone out (err.mayHaveBeenSent).
  const { email: result } = await client.emails.send(email, { signal: ctx.signal }).catch(async (err: unknown) => {
    if (err instanceof IdempotencyConflictError) {
      err.hints.splice(0, err.hints.length, 'send this email with a new key (or without --idempotency-key: each send gets its own)');
      throw err;
    }
    if (isMailroomError(err) && err.mayHaveBeenSent) {
      const why = err instanceof UnexpectedResponseError ? `the API answered ${err.status}, so the email was most likely accepted` : 'the email may have been sent';
      const stdin = [flags.file, flags.htmlFile, flags.textFile, flags.varsFile].includes('-') ? ' (with the same stdin)' : '';
      const set: Record<string, string> = { '--idempotency-key': key };
      if (flags.sendAt !== undefined && email.sendAt !== undefined) set['--send-at'] = email.sendAt;
      const timeout = raisedTimeout(err, ctx.settings().timeoutMs.value);
      if (timeout !== undefined) set['--timeout'] = timeout;
      err.hints.push(`${why}: to retry without sending it twice, run${stdin}:`, `  ${rerunCommand(cmd, set)}`);
    }
    throw err;
  });
  const mode = out.outputMode(ctx, globals);
  if (mode.quiet) return;
  if (mode.format === 'json') {
    // The key rides next to the API's answer: with it, a script can retry this exact send safely.
    // sendAt as the table shows it: the time asked for (`--send-at +2h` resolved), unless the API says its own.
    out.printJson(ctx, { ...result, ...(email.sendAt !== undefined && result.sendAt === undefined ? { sendAt: email.sendAt } : {}), idempotencyKey: key });
    if (result.warning) notice(ctx.io.err, 'warning', oneLine(result.warning));
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
}
