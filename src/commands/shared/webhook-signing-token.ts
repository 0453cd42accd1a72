import type { CommandContext } from '../context.js';
import { MailroomError, usageError } from '../../errors.js';
import { hasPrefix } from '../../schema/ids.js';
import { holdSecret, isMasked } from '../../secrets.js';
import { tokenFrom, TOKEN_ENV } from '../../webhook/token.js';
import { apiClient } from './api-client.js';

export interface SigningToken {
  token: string;
  /** Set when the token came from the API, so the caller can check where the webhook delivers. */
  webhook?: { id: string; url: string };
}

/**
 * The token `listen` verifies with and `replay` signs with: `--token`, else `--webhook <wh_id>`
 * (GET /v1/webhooks/{id}, so the secret never has to be pasted), else MAILROOM_WEBHOOK_TOKEN.
 */
export async function resolveSigningToken(flags: { token?: string; tokenFile?: string; webhook?: string }, ctx: CommandContext, why: string): Promise<SigningToken> {
  if ((flags.token !== undefined || flags.tokenFile !== undefined) && flags.webhook !== undefined) throw usageError(`use ${flags.token !== undefined ? '--token' : '--token-file'} or --webhook, not both`);
  if (flags.webhook === undefined) {
    const token = tokenFrom(flags.token, ctx.env, flags.tokenFile, ctx.cwd);
    if (token === undefined) throw usageError(`the webhook signing token is needed ${why}: --token-file <path>, --webhook <wh_id>, ${TOKEN_ENV}, or --token <wht_…>`);
    return { token };
  }
  const id = flags.webhook;
  if (!hasPrefix('webhook', id)) throw usageError(`--webhook: "${id}" is not a webhook id (wh_…)`);
  const webhook = await (await apiClient(ctx)).webhooks.get(id, { signal: ctx.signal });
  if (!webhook.token || isMasked(webhook.token)) throw new MailroomError('unexpected', `the API returned webhook ${id} without its full token; pass --token instead`);
  holdSecret(webhook.token);
  return { token: webhook.token, webhook: { id, url: webhook.url } };
}
