import { usageError } from '../errors.js';
import { idProblem, type IdKind } from '../schema/ids.js';

/** A positional id must carry its type prefix: a wrong one is a typo, caught before any request. */
export function requireId(kind: IdKind, value: string): string {
  const id = value.trim();
  if (idProblem(kind, id) !== undefined) throw usageError(idProblem(kind, value)!);
  return id;
}
