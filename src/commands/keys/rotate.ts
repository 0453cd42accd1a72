import type { Command } from 'commander';
import type { Context, GlobalOptions } from '../../context.js';
import { CliError, isCliError, type ErrorKind } from '../../errors.js';
import type { ApiKey, KeyCheckResult } from '../../schema/api-key.js';
import type { Transport } from '../../transport/index.js';
import { refuseQuietDiscard } from '../secret-once.js';
import { isMasked } from '../../secrets.js';

export interface KeysRotateOptions {
  saveAs?: string;
  yes?: boolean;
}

export function register(parent: Command, ctx: Context): void {
  parent
    .command('rotate')
    .description('replace a key safely: create a new one (same name and role), verify it, then delete the old one')
    .argument('<aki_id>', 'the key to replace')
    .option('--save-as <profile>', 'store the new key in this profile (before the old key is deleted)')
    .option('-y, --yes', 'do not ask for confirmation (required when no terminal is attached)')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom keys rotate aki_123 --save-as default   # asks first on a terminal
  $ mailroom keys rotate aki_123 --yes --json > new-key.json

Steps: look up the old key, confirm (it names the key and says whether it is the one in use), create the new one, check the new secret against the API, save it (--save-as),
and only then delete the old key. If any step fails the old key keeps working, a half-made new key is
deleted, and the error says exactly what is left. The new secret is printed once.`,
    )
    .action(async (id: string, opts: KeysRotateOptions, cmd: Command) => run(id, opts, cmd.optsWithGlobals<GlobalOptions>(), ctx));
}

export interface RotateDeps {
  /** Authenticated with the caller's current key. */
  transport: Transport;
  workspaceId: string;
  /** Validates a secret with the check endpoint, using that secret itself. */
  checkWith(secret: string): Promise<KeyCheckResult>;
  /** Stores the new secret (--save-as); runs before the old key is deleted. */
  save?(secret: string): Promise<void>;
  /** Asks before anything changes, once the old key is known; throws to stop. */
  confirm?(oldKey: ApiKey): Promise<void>;
  signal?: AbortSignal;
}

/** Thrown when the new key works but the old one could not be deleted: the caller must still show the new secret. */
export class RotateIncompleteError extends CliError {
  readonly newKey: ApiKey;
  constructor(kind: ErrorKind, message: string, hints: string[], newKey: ApiKey, requestId: string | undefined) {
    super(kind, message, { hints, requestId });
    this.newKey = newKey;
  }
}

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));
const kindOf = (err: unknown): ErrorKind => (isCliError(err) ? err.kind : 'unexpected');
const requestIdOf = (err: unknown) => (isCliError(err) ? err.requestId : undefined);

/**
 * The order is the safety: nothing is deleted until a replacement exists, answers the check endpoint
 * with its own secret, and is saved. Each failure leaves the old key working and says what is left.
 */
export async function rotateKey(deps: RotateDeps, keyId: string): Promise<{ oldKey: ApiKey; newKey: ApiKey }> {
  const api = await import('../../api/apiKeys.js');
  const { transport, workspaceId } = deps;

  let oldKey: ApiKey | undefined;
  try {
    oldKey = (await api.listAllKeys(transport, workspaceId, { limit: 100 }, { signal: deps.signal })).find((k) => k.id === keyId);
  } catch (err) {
    throw new CliError(kindOf(err), `rotate: could not look up ${keyId}: ${reason(err)}`, { hints: ['nothing was changed'], requestId: requestIdOf(err) });
  }
  if (!oldKey) throw new CliError('rejected', `rotate: no key ${keyId} in workspace ${workspaceId}`, { hints: ['nothing was changed'] });
  await deps.confirm?.(oldKey);

  let newKey: ApiKey;
  try {
    newKey = await api.createKey(transport, workspaceId, { displayName: oldKey.displayName, role: oldKey.role as 'API_USER' }, { signal: deps.signal });
  } catch (err) {
    const kind = kindOf(err);
    // No answer (connection lost, timeout, 5xx): the API may have created the key all the same.
    const hints =
      kind === 'network'
        ? [`${keyId} still works`, `a replacement may have been created without its answer arriving: look for a second "${oldKey.displayName}" in \`mailroom keys list\` and delete it`]
        : [`nothing was changed: ${keyId} still works`];
    throw new CliError(kind, `rotate: could not create the replacement key: ${reason(err)}`, { hints, requestId: requestIdOf(err) });
  }

  // From here on the new key exists; a failure must remove it again (no signal: cleanup must finish).
  const abandon = async (kind: ErrorKind, what: string, requestId: string | undefined): Promise<never> => {
    const hints: string[] = [];
    try {
      await api.deleteKey(transport, workspaceId, newKey.id);
      hints.push(`deleted the new key ${newKey.id} again`);
    } catch (err) {
      hints.push(`could not delete the new key ${newKey.id} (${reason(err)}): run \`mailroom keys delete ${newKey.id} --yes\``);
    }
    hints.push(`the old key ${keyId} is unchanged and still works`);
    throw new CliError(kind, `rotate: ${what}`, { hints, requestId });
  };

  const secret = newKey.secretKey;
  if (!secret || isMasked(secret)) return abandon('unexpected', `the API returned no full secret for the new key ${newKey.id}`, undefined);
  try {
    await deps.checkWith(secret);
  } catch (err) {
    return abandon(kindOf(err), `the new key ${newKey.id} failed its check: ${reason(err)}`, requestIdOf(err));
  }
  if (deps.save) {
    try {
      await deps.save(secret);
    } catch (err) {
      return abandon(kindOf(err), `could not save the new key: ${reason(err)}`, requestIdOf(err));
    }
  }

  try {
    await api.deleteKey(transport, workspaceId, keyId);
  } catch (err) {
    throw new RotateIncompleteError(
      kindOf(err),
      `rotate: the new key ${newKey.id} works, but the old key ${keyId} could not be deleted: ${reason(err)}`,
      [`both keys work now; delete the old one when you can: \`mailroom keys delete ${keyId} --yes\``],
      newKey,
      requestIdOf(err),
    );
  }
  return { oldKey, newKey };
}

/** The list shows only the last four characters of a secret: enough to warn, never to act on. */
function usedTheOldKey(oldKey: ApiKey, usedSecret: string): boolean {
  const tail = /…([A-Za-z0-9]{4})$/.exec(oldKey.secretKey ?? '')?.[1];
  return tail !== undefined && usedSecret.endsWith(tail);
}

export async function run(id: string, opts: KeysRotateOptions, globals: GlobalOptions, ctx: Context): Promise<void> {
  const { requireId } = await import('../../input/ids.js');
  const keyId = requireId('apiKey', id);
  if (!opts.saveAs) refuseQuietDiscard(globals.quiet, 'secret', 'add --save-as <profile> or drop -q');
  const shared = await import('./shared.js');
  await shared.checkProfileName(opts.saveAs);
  // Off a terminal nothing can be asked: refuse before any request, as delete does.
  const { refuseWithoutTerminal } = await import('../../input/confirm.js');
  refuseWithoutTerminal(ctx, `rotate ${keyId}`, opts.yes);
  const { resolveSettings } = await import('../../config/settings.js');
  const settings = resolveSettings(ctx, globals);
  const workspaceId = shared.workspaceOf(settings);
  const { createTransport } = await import('../../client.js');
  const transport = await createTransport(ctx, settings);
  const { checkKey } = await import('../../api/apiKeys.js');
  const { confirmOrRefuse } = await import('../../input/confirm.js');
  const deps: RotateDeps = {
    transport,
    workspaceId,
    signal: ctx.signal,
    async checkWith(secret) {
      const probe = await createTransport(ctx, { ...settings, apiKey: { value: secret, source: 'flag', origin: 'the new key' } });
      try {
        return await checkKey(probe);
      } finally {
        await probe.close();
      }
    },
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
    deps.save = (secret) => shared.saveToProfile(ctx, settings, profile, secret, workspaceId);
  }
  try {
    const { oldKey, newKey } = await rotateKey(deps, keyId);
    await shared.printKey(ctx, globals, newKey, 'new');
    if (!globals.quiet) {
      ctx.io.err.write(`Rotated ${oldKey.id} → ${newKey.id} ("${newKey.displayName}", ${newKey.role}); ${oldKey.id} no longer works.\n`);
      ctx.io.err.write(opts.saveAs ? `Saved in profile "${opts.saveAs}".\n` : `${shared.ONCE_WARNING}\n`);
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
      await shared.printKey(ctx, { ...globals, quiet: false }, err.newKey, 'new');
      err.hints.push(opts.saveAs ? `the new key is saved in profile "${opts.saveAs}"` : 'the new secret is printed above (stdout), once');
    }
    throw err;
  } finally {
    await transport.close();
  }
}
