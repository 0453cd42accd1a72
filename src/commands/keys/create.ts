import type { Command } from 'commander';
import type { Context, GlobalOptions } from '../../context.js';
import { CliError, usageError } from '../../errors.js';
import { refuseQuietDiscard } from '../secret-once.js';

export interface KeysCreateOptions {
  name: string;
  role: string;
  saveAs?: string;
}

export function register(parent: Command, ctx: Context): void {
  parent
    .command('create')
    .description('create an API key; its secret is shown once')
    .requiredOption('--name <displayName>', 'a name for the key')
    .option('--role <role>', 'role of the key', 'API_USER')
    .option('--save-as <profile>', 'also store the new key in this profile')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom keys create --name deploy-bot
  $ mailroom keys create --name ci --save-as ci     # stored in profile "ci"; use with --profile ci

The full secret is printed once (stdout) and cannot be retrieved again; secrets of existing keys are always masked.`,
    )
    .action(async (opts: KeysCreateOptions, cmd: Command) => run(opts, cmd.optsWithGlobals<GlobalOptions>(), ctx));
}

export async function run(opts: KeysCreateOptions, globals: GlobalOptions, ctx: Context): Promise<void> {
  if (!opts.saveAs) refuseQuietDiscard(globals.quiet, 'secret', 'add --save-as <profile> or drop -q');
  const [{ createKeyRequestSchema, describeIssues }, shared] = await Promise.all([import('../../schema/index.js'), import('./shared.js')]);
  const keyFlag = shared.keyFlag;
  const body = createKeyRequestSchema.safeParse({ displayName: opts.name, role: opts.role });
  if (!body.success) throw usageError(`invalid key: ${describeIssues(body.error.issues, keyFlag).replace(/role \(--role\) .*/, 'role (--role) must be one of API_USER, EDITOR, VIEWER')}`);
  await shared.checkProfileName(opts.saveAs);
  const { resolveSettings } = await import('../../config/settings.js');
  const settings = resolveSettings(ctx, globals);
  const workspaceId = shared.workspaceOf(settings);
  const { createTransport } = await import('../../client.js');
  const transport = await createTransport(ctx, settings);
  try {
    const { createKey } = await import('../../api/apiKeys.js');
    const key = await createKey(transport, workspaceId, body.data, { signal: ctx.signal });
    let saveError: unknown;
    if (opts.saveAs && key.secretKey) {
      try {
        await shared.saveToProfile(ctx, settings, opts.saveAs, key.secretKey, workspaceId);
      } catch (err) {
        saveError = err;
      }
    }
    // The key exists now: a failed save must not lose its secret, so it is printed even with -q.
    await shared.printKey(ctx, saveError === undefined ? globals : { ...globals, quiet: false }, key, 'new');
    if (saveError !== undefined) {
      throw new CliError('unexpected', `created key ${key.id}, but could not save it in profile "${opts.saveAs}": ${saveError instanceof Error ? saveError.message : String(saveError)}`, {
        hints: [`the new secret is printed above (stdout), once: store it now, or delete the key: \`mailroom keys delete ${key.id} --yes\``],
        cause: saveError,
      });
    }
    if (!globals.quiet) {
      ctx.io.err.write(`${shared.ONCE_WARNING}\n`);
      if (opts.saveAs) ctx.io.err.write(`Saved in profile "${opts.saveAs}" (use --profile ${opts.saveAs}).\n`);
    }
  } finally {
    await transport.close();
  }
}
