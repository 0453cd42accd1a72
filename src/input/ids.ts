import { usageError } from '../errors.js';
import { hasPrefix, ID_PREFIX, type IdKind } from '../schema/ids.js';

const NOUN: Partial<Record<IdKind, string>> = { apiKey: 'API key id', webhook: 'webhook id', workspace: 'workspace id' };

/** A positional id must carry its type prefix: a wrong one is a typo, caught before any request. */
export function requireId(kind: IdKind, value: string): string {
  const id = value.trim();
  if (!hasPrefix(kind, id)) throw usageError(`"${value}" is not ${article(NOUN[kind] ?? kind)}: expected ${ID_PREFIX[kind]}...`);
  return id;
}

function article(noun: string): string {
  return /^[aeiou]/i.test(noun) ? `an ${noun}` : `a ${noun}`;
}
