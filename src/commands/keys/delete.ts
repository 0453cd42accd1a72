import type { Command } from 'commander';
import type { Context, GlobalOptions } from '../../context.js';

export interface KeysDeleteOptions {
  yes?: boolean;
}

export function register(parent: Command, ctx: Context): void {
  parent
    .command('delete')
    .description('delete an API key; it stops working at once for everyone using it')
    .argument('<aki_id>', 'the key to delete')
    .option('-y, --yes', 'do not ask for confirmation (required when no terminal is attached)')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom keys delete aki_123            # asks first on a terminal
  $ mailroom keys delete aki_123 --yes      # scripts and CI`,
    )
    .action(async (id: string, opts: KeysDeleteOptions, cmd: Command) => run(id, opts, cmd.optsWithGlobals<GlobalOptions>(), ctx));
}

export async function run(id: string, opts: KeysDeleteOptions, globals: GlobalOptions, ctx: Context): Promise<void> {
  const { requireId } = await import('../../input/ids.js');
  const keyId = requireId('apiKey', id);
  const shared = await import('./shared.js');
  const { resolveSettings } = await import('../../config/settings.js');
  const settings = resolveSettings(ctx, globals);
  const workspaceId = shared.workspaceOf(settings);
  const { requireApiKey } = await import('../../config/settings.js');
  requireApiKey(settings);
  const { confirmOrRefuse } = await import('../../input/confirm.js');
  await confirmOrRefuse(ctx, `Delete API key ${keyId}? Anything using it stops working at once.`, `delete ${keyId}`, opts.yes);
  const { createTransport } = await import('../../client.js');
  const transport = await createTransport(ctx, settings);
  try {
    const { deleteKey } = await import('../../api/apiKeys.js');
    const deleted = await deleteKey(transport, workspaceId, keyId, { signal: ctx.signal });
    if (deleted === 'gone') {
      const { printDeletedWithoutAnswer } = await import('../../output/gone.js');
      await printDeletedWithoutAnswer(ctx, globals, keyId, 'API key');
      return;
    }
    await shared.printKey(ctx, globals, deleted);
    if (!globals.quiet && ctx.io.isStdoutTTY && !globals.json) ctx.io.err.write(`Deleted ${deleted.id}.\n`);
  } finally {
    await transport.close();
  }
}
