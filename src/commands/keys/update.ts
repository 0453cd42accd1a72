import type { Command } from 'commander';
import type { Context, GlobalOptions } from '../../context.js';
import { usageError } from '../../errors.js';

export interface KeysUpdateOptions {
  name?: string;
  role?: string;
}

export function register(parent: Command, ctx: Context): void {
  parent
    .command('update')
    .description('rename an API key or change its role (the secret cannot change)')
    .argument('<aki_id>', 'the key to update')
    .option('--name <displayName>', 'new name')
    .option('--role <role>', 'new role')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom keys update aki_123 --name deploy-bot-2
  $ mailroom keys update aki_123 --role API_USER --json`,
    )
    .action(async (id: string, opts: KeysUpdateOptions, cmd: Command) => run(id, opts, cmd.optsWithGlobals<GlobalOptions>(), ctx));
}

export async function run(id: string, opts: KeysUpdateOptions, globals: GlobalOptions, ctx: Context): Promise<void> {
  const { requireId } = await import('../../input/ids.js');
  const keyId = requireId('apiKey', id);
  if (opts.name === undefined && opts.role === undefined) throw usageError('nothing to update: give --name and/or --role');
  const [{ updateKeyRequestSchema, describeIssues }, shared] = await Promise.all([import('../../schema/index.js'), import('./shared.js')]);
  const body = updateKeyRequestSchema.safeParse({ displayName: opts.name, role: opts.role });
  if (!body.success) throw usageError(`invalid update: ${describeIssues(body.error.issues, shared.keyFlag).replace(/role \(--role\) .*/, 'role (--role) must be one of API_USER, EDITOR, VIEWER')}`);
  const { resolveSettings } = await import('../../config/settings.js');
  const settings = resolveSettings(ctx, globals);
  const workspaceId = shared.workspaceOf(settings);
  const { createTransport } = await import('../../client.js');
  const transport = await createTransport(ctx, settings);
  try {
    const { updateKey } = await import('../../api/apiKeys.js');
    await shared.printKey(ctx, globals, await updateKey(transport, workspaceId, keyId, body.data, { signal: ctx.signal }));
  } finally {
    await transport.close();
  }
}
