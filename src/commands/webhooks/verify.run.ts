import type { CommandContext } from '../context.js';
import { MailroomError, usageError } from '../../errors.js';
import type { CapturedRequest } from '../../webhook/http-request.js';
import { readBytes } from '../../webhook/bytes.js';
import { stdinFor } from '../../input/stdin.js';
import { requireToken } from '../../webhook/token.js';
import { parseMaxAge, ageProblem } from '../../webhook/max-age.js';
import { parseCapturedRequest } from '../../webhook/http-request.js';
import { findSignatureHeader } from '../../webhook/signature.js';
import { diagnose } from '../../webhook/explain.js';
import { outputMode, printJson } from '../../output/index.js';
import { normalizeEnvelope } from '../../schema/index.js';
import { notice } from '../../output/notice.js';

export interface WebhooksVerifyOptions {
  token?: string;
  tokenFile?: string;
  signature?: string;
  payload?: string;
  headerFile?: string;
  maxAge?: string;
}

export async function run(flags: WebhooksVerifyOptions, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  const token = requireToken(flags.token, ctx.env, 'to verify a signature', flags.tokenFile, ctx.cwd);
  const maxAgeMs = flags.maxAge === undefined ? undefined : parseMaxAge(flags.maxAge);
  if (flags.payload === '-' && flags.headerFile === '-') throw usageError('--payload and --header-file cannot both read stdin');
  if (flags.signature === undefined && flags.headerFile === undefined) {
    throw usageError('give the signature: --signature <hex>, or --header-file <file> holding the X-Smashsend-Signature header');
  }

  let headerName = 'x-smashsend-signature';
  let signature = flags.signature;
  let captured: CapturedRequest | undefined;
  if (flags.headerFile !== undefined) {
    const raw = await readBytes(flags.headerFile, '--header-file', ctx.cwd, stdinFor(ctx, 'the captured request'));
    try {
      captured = parseCapturedRequest(raw);
    } catch (err) {
      throw usageError(`--header-file: ${flags.headerFile} is not a captured HTTP request: ${(err as Error).message}`);
    }
    if (signature === undefined) {
      const found = findSignatureHeader(captured.headers);
      if (found) {
        headerName = found.name;
        signature = found.value;
      }
    }
  }

  let body: Buffer;
  if (flags.payload !== undefined) body = await readBytes(flags.payload, '--payload', ctx.cwd, stdinFor(ctx, 'the payload'));
  else if (captured?.body !== undefined) body = captured.body;
  else if (!ctx.io.isStdinTTY) body = await readBytes('-', '--payload', ctx.cwd, stdinFor(ctx, 'the payload'));
  else throw usageError('no body to verify: pass --payload <file|->, pipe it on stdin, or use a --header-file that includes the body');

  const verdict = diagnose(token, body, signature);
  const notes = captured?.notes ?? [];
  const json = outputMode(ctx, globals).format === 'json';
  if (verdict.ok && maxAgeMs !== undefined) {
    let createdAt: string | undefined;
    try {
      createdAt = normalizeEnvelope(JSON.parse(body.toString('utf8')))?.createdAt;
    } catch {
      createdAt = undefined;
    }
    const stale = ageProblem(createdAt, maxAgeMs, new Date());
    if (stale) {
      if (json && !globals.quiet) printJson(ctx, { valid: false, reason: stale.reason, createdAt, message: stale.message, bytes: body.length });
      throw new MailroomError('signature', stale.message, { hints: notes });
    }
  }
  if (verdict.ok) {
    if (globals.quiet) return;
    if (json) printJson(ctx, { valid: true, header: headerName, bytes: body.length });
    else ctx.io.out.write(`✓ signature matches (${body.length}-byte body, ${headerName.replace(/(^|-)[a-z]/g, (c) => c.toUpperCase())})\n`);
    for (const note of notes) notice(ctx.io.err, 'note', note);
    return;
  }
  if (json && !globals.quiet) {
    printJson(ctx, { valid: false, reason: verdict.reason, cause: verdict.cause, message: verdict.message, bytes: body.length });
  }
  throw new MailroomError('signature', verdict.message, { hints: [...notes, ...hintsFor(verdict.reason, verdict.cause)] });
}

function hintsFor(reason: string, cause: string | undefined): string[] {
  if (reason === 'missing') return ['the request carries no X-Smashsend-Signature header: was it captured before the sender signed it?'];
  if (cause === 'token-or-body') {
    return [
      "check the token is this webhook's own (the one webhooks create printed; webhooks get masks it)",
      'and that the body is the exact bytes received, before any JSON parser touched them',
    ];
  }
  return [];
}
