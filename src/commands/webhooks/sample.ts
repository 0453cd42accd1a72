import type { Command } from 'commander';
import type { Context, Globals } from '../../context.js';
import { usageError } from '../../errors.js';

export interface WebhooksSampleOptions {
  token?: string;
  tokenFile?: string;
  email?: string;
}

export function register(parent: Command, ctx: Context): void {
  parent
    .command('sample')
    .argument('<EVENT>', 'one of the six event names (mailroom webhooks events lists them)')
    .description('print a realistic delivery body for an event, and with a token its signature header')
    .option('--token <wht_…>', 'sign the body with this token (env MAILROOM_WEBHOOK_TOKEN); argv is visible to other local users: prefer the env or --token-file')
    .option('--token-file <path|->', 'read the signing token from a file, or - for stdin')
    .option('--email <address>', 'the contact (or team member) address in the payload')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom webhooks sample CONTACT_CREATED
  $ mailroom webhooks sample CONTACT_UNSUBSCRIBED --email ada@example.com --token "$TOKEN" >body.json 2>headers.txt
  $ mailroom webhooks verify --token "$TOKEN" --header-file headers.txt --payload body.json

stdout is exactly the signed bytes (compact JSON, as the service and the sandbox send it; a newline
is added only when stdout is a terminal). With a token, stderr gets one line
"X-Smashsend-Signature: <hex>", a headers file that verify --header-file reads.`,
    )
    .action(async (event: string, flags: WebhooksSampleOptions, cmd: Command) => {
      await run(event, flags, cmd.optsWithGlobals<Globals>(), ctx);
    });
}

export async function run(event: string, flags: WebhooksSampleOptions, _globals: Globals, ctx: Context): Promise<void> {
  const { isEmailAddress } = await import('../../schema/index.js');
  const { parseEvents } = await import('../../input/events.js');
  const names = parseEvents([event]);
  if (names.length !== 1) throw usageError('sample takes one event, e.g. CONTACT_CREATED');
  const name = names[0]!;
  if (flags.email !== undefined && !isEmailAddress(flags.email)) throw usageError(`--email: "${flags.email}" is not an email address`);
  const { tokenFrom } = await import('../../webhook/token.js');
  const { sampleEnvelope, serializeEnvelope } = await import('../../webhook/samples.js');
  const body = serializeEnvelope(sampleEnvelope(name, { email: flags.email }));
  ctx.io.out.write(ctx.io.isStdoutTTY ? `${body}\n` : body);
  const token = tokenFrom(flags.token, ctx.env, flags.tokenFile, ctx.cwd);
  if (token !== undefined) {
    const { sign } = await import('../../webhook/signature.js');
    ctx.io.err.write(`X-Smashsend-Signature: ${sign(token, body)}\n`);
  }
}
