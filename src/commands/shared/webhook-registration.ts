import { randomBytes } from 'node:crypto';
import type { CommandContext } from '../context.js';
import { MailroomError, usageError } from '../../errors.js';
import { oneLine } from '../../output/one-line.js';
import { EVENT_NAMES, type EventName } from '../../schema/events.js';
import { paths } from '../../api/paths.js';
import { holdSecret } from '../../secrets.js';
import { tokenFrom } from '../../webhook/token.js';
import { apiClient } from './api-client.js';
import { notice } from '../../output/notice.js';

/** `webhooks listen --register`: a webhook in a sandbox that delivers to this listener while it runs. */
export interface Registration {
  id: string;
  /** Deletes the webhook; a failure is reported, not thrown (the listener is stopping anyway). */
  remove(): Promise<void>;
}

/**
 * Checks that the API the command points at is a mailroom sandbox (only there is a webhook cheap to
 * create and throw away) and returns the signing token the webhook will be created with: known
 * before the listener starts, so it verifies the very first delivery. `--token`/`--token-file` give
 * it (an app that already verifies with it keeps working); else a fresh one is made (`created`:
 * the caller shows it once, since nothing else will).
 */
export async function registrationToken(flags: { token?: string; tokenFile?: string; webhook?: string }, ctx: CommandContext): Promise<{ token: string; created: boolean }> {
  if (flags.webhook !== undefined) throw usageError('--register creates its own webhook: drop --webhook (or drop --register to listen for that webhook)');
  // Not MAILROOM_WEBHOOK_TOKEN: a token left in the environment would be reused without a word.
  const given = flags.token !== undefined || flags.tokenFile !== undefined ? tokenFrom(flags.token, {}, flags.tokenFile, ctx.cwd) : undefined;
  const settings = ctx.settings();
  const notOne = (root: string) => usageError(`--register works with a mailroom sandbox only, and ${root} is not one`, ['elsewhere, create the webhook (mailroom webhooks create) and pass --webhook <wh_id>']);
  // The API's own default host is no sandbox; the sandbox commands' default (a local one) is not where this command sends.
  if (settings.baseUrl.source === 'default') throw notOne(settings.baseUrl.value.replace(/\/+$/, '').replace(/\/v1$/, ''));
  const admin = await ctx.sandboxAdmin();
  try {
    await admin.call('GET', paths.sandboxEmails(new URLSearchParams({ limit: '0' })));
  } catch (err) {
    if (err instanceof MailroomError && err.kind === 'rejected') throw notOne(admin.root);
    throw err;
  }
  if (given !== undefined) return { token: given, created: false };
  const token = `wht_${randomBytes(24).toString('base64url')}`;
  holdSecret(token);
  return { token, created: true };
}

/** Creates the webhook: `url` (the listener), `token`, the given events or all of them. */
export async function registerWebhook(url: string, token: string, events: readonly EventName[] | undefined, ctx: CommandContext): Promise<Registration> {
  const { globals } = ctx;
  const mailroom = await apiClient(ctx);
  const hook = await mailroom.webhooks.create({ url, events: events && events.length > 0 ? [...events] : [...EVENT_NAMES], token }, { signal: ctx.signal });
  if (hook.token !== token) {
    await mailroom.webhooks.delete(hook.id).catch(() => undefined);
    throw new MailroomError('unexpected', `the sandbox did not keep the signing token given for webhook ${hook.id}; pass --webhook ${hook.id} instead`);
  }
  return {
    id: hook.id,
    async remove() {
      try {
        // Not ctx.signal: it is already aborted by the Ctrl-C that stops the listener.
        await mailroom.webhooks.delete(hook.id, { signal: AbortSignal.timeout(globals.timeout ?? 10_000) });
        if (!globals.quiet) ctx.io.err.write(`Deleted webhook ${hook.id}\n`);
      } catch (err) {
        notice(ctx.io.err, 'warning', `cannot delete webhook ${hook.id}: ${oneLine((err as Error).message)}; delete it with: mailroom webhooks delete ${hook.id}`);
      }
    },
  };
}
