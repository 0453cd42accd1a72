import type { CommandContext } from '../context.js';
import { apiClient } from '../shared/api-client.js';
import { MailroomError } from '../../errors.js';
import { printKey } from '../../output/resources.js';
import { createKeyRequestSchema } from '../../schema/index.js';
import { checkProfileName, ONCE_WARNING, refuseLosingTheSecret, saveToProfile } from '../shared/new-key.js';
import { keyRequestBody } from '../shared/key-request-body.js';
import { workspaceOf } from '../shared/workspace.js';

export interface KeysCreateOptions {
  name: string;
  role: string;
  saveAs?: string;
}

export async function run(opts: KeysCreateOptions, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  refuseLosingTheSecret(ctx, opts.saveAs);
  const body = keyRequestBody(createKeyRequestSchema, { displayName: opts.name, role: opts.role }, 'key');
  checkProfileName(opts.saveAs);
  const workspaceId = workspaceOf(ctx.settings());
  const key = await (await apiClient(ctx, workspaceId)).apiKeys.create(body, { signal: ctx.signal });
  let saveError: unknown;
  if (opts.saveAs && key.secretKey) {
    try {
      await saveToProfile(ctx, opts.saveAs, key.secretKey, workspaceId);
    } catch (err) {
      saveError = err;
    }
  }
  // The key exists now: a failed save must not lose its secret, so it is printed even with -q.
  await printKey(ctx, saveError === undefined ? globals : { ...globals, quiet: false }, key, 'new');
  if (saveError !== undefined) {
    throw new MailroomError('unexpected', `created key ${key.id}, but could not save it in profile "${opts.saveAs}": ${saveError instanceof Error ? saveError.message : String(saveError)}`, {
      hints: [`the new secret is printed above (stdout), once: store it now, or delete the key: \`mailroom keys delete ${key.id} --yes\``],
      cause: saveError,
    });
  }
  if (!globals.quiet) {
    ctx.io.err.write(`${ONCE_WARNING}\n`);
    if (opts.saveAs) ctx.io.err.write(`Saved in profile "${opts.saveAs}" (use --profile ${opts.saveAs}).\n`);
  }
}
