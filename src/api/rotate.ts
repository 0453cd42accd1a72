import { MailroomError, isMailroomError, usageError, type ErrorKind } from '../errors.js';
import type { ApiKey, KeyCheckResult } from '../schema/api-key.js';
import { idProblem } from '../schema/ids.js';
import { isMasked } from '../secrets.js';
import type { Transport } from '../transport/index.js';
import * as api from './apiKeys.js';
import { RotateIncompleteError } from './call-errors.js';

export { RotateIncompleteError } from './call-errors.js';

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

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));
const kindOf = (err: unknown): ErrorKind => (isMailroomError(err) ? err.kind : 'unexpected');
const requestIdOf = (err: unknown) => (isMailroomError(err) ? err.requestId : undefined);

/**
 * The order is the safety: nothing is deleted until a replacement exists, answers the check endpoint
 * with its own secret, and is saved. Each failure leaves the old key working and says what is left.
 */
export async function rotateKey(deps: RotateDeps, keyId: string): Promise<{ oldKey: ApiKey; newKey: ApiKey }> {
  const { transport, workspaceId } = deps;
  // Found by id in the list, not by path: checked here as every other key id is (api/paths.ts).
  const problem = idProblem('apiKey', keyId);
  if (problem !== undefined) throw usageError(problem);

  let oldKey: ApiKey | undefined;
  try {
    oldKey = (await api.listAllKeys(transport, workspaceId, { limit: 100 }, { signal: deps.signal })).find((k) => k.id === keyId);
  } catch (err) {
    throw new MailroomError(kindOf(err), `rotate: could not look up ${keyId}: ${reason(err)}`, { hints: ['nothing was changed'], requestId: requestIdOf(err) });
  }
  if (!oldKey) throw new MailroomError('rejected', `rotate: no key ${keyId} in workspace ${workspaceId}`, { hints: ['nothing was changed'] });
  await deps.confirm?.(oldKey);

  let newKey: ApiKey;
  try {
    newKey = await api.createKey(transport, workspaceId, { displayName: oldKey.displayName, role: oldKey.role as 'API_USER' }, { signal: deps.signal });
  } catch (err) {
    const kind = kindOf(err);
    // No answer (connection lost, timeout, 5xx): the API may have created the key all the same.
    const hints =
      kind === 'connection' || kind === 'timeout' || kind === 'server'
        ? [`${keyId} still works`, `a replacement may have been created without its answer arriving: look for a second "${oldKey.displayName}" in \`mailroom keys list\` and delete it`]
        : [`nothing was changed: ${keyId} still works`];
    throw new MailroomError(kind, `rotate: could not create the replacement key: ${reason(err)}`, { hints, requestId: requestIdOf(err) });
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
    throw new MailroomError(kind, `rotate: ${what}`, { hints, requestId });
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

