import type { CommandContext } from '../context.js';
import { paths } from '../../api/paths.js';
import { outputMode, printJson, printKeyValues } from '../../output/index.js';
import { reveal } from '../../secrets.js';
import { usageError } from '../../errors.js';
import { refuseDiscardingSecret } from '../shared/secret-once.js';

export interface SandboxWorkspaceCreateOptions {
  name?: string;
}

/** Asks a running sandbox for a workspace of its own (POST /_sandbox/workspaces) and prints its key, once. */
export async function run(opts: SandboxWorkspaceCreateOptions, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  // The sandbox's own rule, checked here so that a bad name is a usage error (exit 2), not a refusal (4).
  if (opts.name !== undefined && (opts.name.trim() === '' || opts.name.length > 200)) throw usageError('--name: give the workspace a name of 1 to 200 characters');
  refuseDiscardingSecret({ quiet: globals.quiet, jsonFields: ctx.jsonFields }, 'secret', 'apiKey', { quiet: 'drop -q, or use --json apiKey,workspaceId' });
  const admin = await ctx.sandboxAdmin();
  const root = admin.root;
  const { body } = await admin.call('POST', paths.sandboxWorkspaces(), opts.name === undefined ? {} : { name: opts.name });
  const made = body as { workspaceId: string; name: string; apiKey: string };
  reveal(made.apiKey);
  const shown = { workspaceId: made.workspaceId, name: made.name, apiKey: made.apiKey, baseUrl: root };
  if (outputMode(ctx, globals).format === 'json') return printJson(ctx, shown);
  await printKeyValues(ctx, [
    ['workspace', made.workspaceId],
    ['name', made.name],
    ['api key', made.apiKey],
    ['base url', root],
  ]);
}
