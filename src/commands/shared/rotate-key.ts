import type { ApiKey } from '../../schema/api-key.js';

// The rotation itself is the library's too (src/api/rotate.ts); the CLI adds the question and the printing.
export { rotateKey, RotateIncompleteError, type RotateDeps } from '../../api/rotate.js';

/** The list shows only the last four characters of a secret: enough to warn, never to act on. */
export function usedTheOldKey(oldKey: ApiKey, usedSecret: string): boolean {
  const tail = /…([A-Za-z0-9]{4})$/.exec(oldKey.secretKey ?? '')?.[1];
  return tail !== undefined && usedSecret.endsWith(tail);
}
