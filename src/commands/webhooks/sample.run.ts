import type { CommandContext } from '../context.js';
import { usageError } from '../../errors.js';
import { isEmailAddress } from '../../schema/index.js';
import { parseEvents } from '../../input/events.js';
import { tokenFrom } from '../../webhook/token.js';
import { sampleEnvelope, serializeEnvelope } from '../../webhook/samples.js';
import { sign } from '../../webhook/signature.js';

export interface WebhooksSampleOptions {
  event: string;
  token?: string;
  tokenFile?: string;
  email?: string;
}

export async function run(flags: WebhooksSampleOptions, ctx: CommandContext): Promise<void> {
  const names = parseEvents([flags.event]);
  if (names.length !== 1) throw usageError('sample takes one event, e.g. CONTACT_CREATED');
  const name = names[0]!;
  if (flags.email !== undefined && !isEmailAddress(flags.email)) throw usageError(`--email: "${flags.email}" is not an email address`);
  const body = serializeEnvelope(sampleEnvelope(name, { email: flags.email }));
  ctx.io.out.write(ctx.io.isStdoutTTY ? `${body}\n` : body);
  const token = tokenFrom(flags.token, ctx.env, flags.tokenFile, ctx.cwd);
  if (token !== undefined) {
    ctx.io.err.write(`X-Smashsend-Signature: ${sign(token, body)}\n`);
  }
}
