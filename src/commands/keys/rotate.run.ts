import { checkKey } from '../../api/apiKeys.js';
import type { CommandContext } from '../context.js';
import { confirmOrRefuse, refuseWithoutTerminal } from '../../input/confirm.js';
import { printKey } from '../../output/resources.js';
import { checkProfileName, ONCE_WARNING, refuseLosingTheSecret, saveToProfile } from '../shared/new-key.js';
import { rotateKey, RotateIncompleteError, usedTheOldKey, type RotateDeps } from '../shared/rotate-key.js';
import { workspaceOf } from '../shared/workspace.js';
import { oneLine } from '../../output/one-line.js';

export interface KeysRotateOptions {
  id: string;
  saveAs?: string;
  yes?: boolean;
}

export async function run(opts: KeysRotateOptions, ctx: CommandContext): Promise<void> {
  const { globals } = ctx;
  const keyId = opts.id;
  refuseLosingTheSecret(ctx, opts.saveAs);
  checkProfileName(opts.saveAs);
  // Off a terminal nothing can be asked: refuse before any request, as delete does.
  refuseWithoutTerminal(ctx, `rotate ${keyId}`, opts.yes);
  const settings = ctx.settings();
  const workspaceId = workspaceOf(settings);
  const deps: RotateDeps = {
    transport: await ctx.api(),
    workspaceId,
    signal: ctx.signal,
    checkWith: async (secret) => checkKey(await ctx.api({ apiKey: secret, origin: 'the new key' })),
  };
  if (!opts.yes) {
    deps.confirm = async (oldKey) => {
      const used = settings.apiKey;
      const inUse = used && usedTheOldKey(oldKey, used.value) ? `It is the key mailroom is using now (from ${used.origin}); it stops` : 'Anything using it stops';
      const question = `Rotate API key ${oldKey.id} "${oldKey.displayName}" (${oldKey.role})? ${inUse} working once its replacement is created and checked.`;
      await confirmOrRefuse(ctx, question, `rotate ${keyId}`, false);
    };
  }
  if (opts.saveAs) {
    const profile = opts.saveAs;
    deps.save = (secret) => saveToProfile(ctx, profile, secret, workspaceId);
  }
  try {
    const { oldKey, newKey } = await rotateKey(deps, keyId);
    await printKey(ctx, globals, newKey, 'new');
    if (!globals.quiet) {
      ctx.io.err.write(oneLine(`Rotated ${oldKey.id} → ${newKey.id} ("${newKey.displayName}", ${newKey.role}); ${oldKey.id} no longer works.`) + '\n');
      ctx.io.err.write(opts.saveAs ? `Saved in profile "${opts.saveAs}".\n` : `${ONCE_WARNING}\n`);
      const used = settings.apiKey;
      // Saving into the active profile replaces only a key that came from that profile, not a flag or variable.
      const replacedWhereItCameFrom = used?.source === 'profile' && opts.saveAs === settings.profile.value;
      if (used && !replacedWhereItCameFrom && usedTheOldKey(oldKey, used.value)) {
        ctx.io.err.write(`The key this command used (from ${used.origin}) was ${oldKey.id}: replace it with the new secret there.\n`);
      }
    }
  } catch (err) {
    // The new key is live and the user must not lose its secret, even though the command failed.
    if (err instanceof RotateIncompleteError) {
      await printKey(ctx, { ...globals, quiet: false }, err.newKey, 'new');
      err.hints.push(opts.saveAs ? `the new key is saved in profile "${opts.saveAs}"` : 'the new secret is printed above (stdout), once');
    }
    throw err;
  }
}
