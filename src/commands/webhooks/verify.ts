import type { Command } from 'commander';
import type { Context, Globals } from '../../context.js';
import { CliError, usageError } from '../../errors.js';
import type { CapturedRequest } from '../../webhook/http-request.js';

export interface WebhooksVerifyOptions {
  token?: string;
  tokenFile?: string;
  signature?: string;
  payload?: string;
  headerFile?: string;
  maxAge?: string;
}

export function register(parent: Command, ctx: Context): void {
  parent
    .command('verify')
    .description('check a webhook signature locally (no network, no API key); explains a mismatch')
    .option('--token <wht_…>', 'the webhook signing token (env MAILROOM_WEBHOOK_TOKEN); argv is visible to other local users: prefer the env or --token-file')
    .option('--token-file <path|->', 'read the signing token from a file, or - for stdin')
    .option('--signature <hex>', 'the received X-Smashsend-Signature value')
    .option('--payload <file|->', 'the raw request body (default: stdin, unless --header-file holds it)')
    .option('--header-file <file|->', 'a captured request (request line, headers, blank line, body) or its headers only')
    .option('--max-age <duration>', 'also refuse a delivery whose envelope time is older (e.g. 5m): a captured one sent again')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom webhooks verify --token "$TOKEN" --signature 3f1c… --payload body.json
  $ mailroom webhooks verify --header-file captured-request.http      # token from MAILROOM_WEBHOOK_TOKEN
  $ mailroom webhooks sample CONTACT_CREATED --token "$TOKEN" >body.json 2>headers.txt
  $ mailroom webhooks verify --token "$TOKEN" --header-file headers.txt --payload body.json

The signature is HMAC-SHA256 of the exact body bytes keyed with the token, as lowercase hex.
Exit 0 when it matches, 8 when it does not (with the likely cause: no signature header, malformed
signature, wrong token, or a body that was re-serialised or gained a trailing newline) or, with
--max-age, when the delivery is older than that; 2 on bad input.`,
    )
    .action(async (flags: WebhooksVerifyOptions, cmd: Command) => {
      await run(flags, cmd.optsWithGlobals<Globals>(), ctx);
    });
}

export async function run(flags: WebhooksVerifyOptions, globals: Globals, ctx: Context): Promise<void> {
  const { requireToken } = await import('../../webhook/token.js');
  const [{ readBytes }, { stdinFor }] = await Promise.all([import('../../webhook/bytes.js'), import('../../input/stdin.js')]);
  const token = requireToken(flags.token, ctx.env, 'to verify a signature', flags.tokenFile, ctx.cwd);
  const { parseMaxAge, tooOld } = await import('../../webhook/max-age.js');
  const maxAgeMs = flags.maxAge === undefined ? undefined : parseMaxAge(flags.maxAge);
  if (flags.payload === '-' && flags.headerFile === '-') throw usageError('--payload and --header-file cannot both read stdin');
  if (flags.signature === undefined && flags.headerFile === undefined) {
    throw usageError('give the signature: --signature <hex>, or --header-file <file> holding the X-Smashsend-Signature header');
  }

  let headerName = 'x-smashsend-signature';
  let signature = flags.signature;
  let captured: CapturedRequest | undefined;
  if (flags.headerFile !== undefined) {
    const { parseCapturedRequest } = await import('../../webhook/http-request.js');
    const raw = await readBytes(flags.headerFile, '--header-file', ctx.cwd, stdinFor(ctx, 'the captured request'));
    try {
      captured = parseCapturedRequest(raw);
    } catch (err) {
      throw usageError(`--header-file: ${flags.headerFile} is not a captured HTTP request: ${(err as Error).message}`);
    }
    if (signature === undefined) {
      const { findSignatureHeader } = await import('../../webhook/signature.js');
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

  const { diagnose } = await import('../../webhook/explain.js');
  const verdict = diagnose(token, body, signature);
  const notes = captured?.notes ?? [];
  const { outputMode } = await import('../../output/index.js');
  const json = outputMode(ctx, globals).format === 'json';
  if (verdict.ok && maxAgeMs !== undefined) {
    const { normalizeEnvelope } = await import('../../schema/index.js');
    let createdAt: string | undefined;
    try {
      createdAt = normalizeEnvelope(JSON.parse(body.toString('utf8')))?.createdAt;
    } catch {
      createdAt = undefined;
    }
    const stale = tooOld(createdAt, maxAgeMs, new Date());
    if (stale) {
      if (json && !globals.quiet) ctx.io.out.write(`${JSON.stringify({ valid: false, reason: 'too-old', createdAt, message: stale, bytes: body.length })}\n`);
      throw new CliError('signature', stale, { hints: notes });
    }
  }
  if (verdict.ok) {
    if (globals.quiet) return;
    if (json) ctx.io.out.write(`${JSON.stringify({ valid: true, header: headerName, bytes: body.length })}\n`);
    else ctx.io.out.write(`✓ signature matches (${body.length}-byte body, ${headerName.replace(/(^|-)[a-z]/g, (c) => c.toUpperCase())})\n`);
    for (const note of notes) ctx.io.err.write(`note: ${note}\n`);
    return;
  }
  if (json && !globals.quiet) {
    ctx.io.out.write(`${JSON.stringify({ valid: false, reason: verdict.reason, cause: verdict.cause, message: verdict.message, bytes: body.length })}\n`);
  }
  throw new CliError('signature', verdict.message, { hints: [...notes, ...hintsFor(verdict.reason, verdict.cause)] });
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
