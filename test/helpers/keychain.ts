import type { Keychain, KeychainRef } from '../../src/context.js';
import { KeychainUnavailable } from '../../src/config/keychain.js';

/**
 * In-process tests never reach the real credential store: the native module would act on this
 * process's D-Bus session, the user's own. A machine without one is the default (fakeContext);
 * the real Secret Service is driven by the spawned tests of test/e2e/keychain.test.ts.
 */
export const noKeychain: Keychain = {
  get: () => {
    throw new KeychainUnavailable('no keychain in this test');
  },
  set: () => {
    throw new KeychainUnavailable('no keychain in this test');
  },
  delete: () => {
    throw new KeychainUnavailable('no keychain in this test');
  },
};

/** A keychain held in memory, with its entries to look at. `down` makes it unreachable, as a locked or absent one. */
export function memoryKeychain(): Keychain & { entries: Map<string, string>; down: boolean } {
  const entries = new Map<string, string>();
  const id = (ref: KeychainRef) => `${ref.service}\n${ref.account}`;
  const up = (k: { down: boolean }) => {
    if (k.down) throw new KeychainUnavailable('the test keychain is down');
  };
  const keychain = {
    entries,
    down: false,
    get(ref: KeychainRef) {
      up(keychain);
      return entries.get(id(ref));
    },
    set(ref: KeychainRef, secret: string) {
      up(keychain);
      entries.set(id(ref), secret);
    },
    delete(ref: KeychainRef) {
      up(keychain);
      return entries.delete(id(ref));
    },
  };
  return keychain;
}

/** The one warning a key saved with no keychain (noKeychain) prints, for the store in `dir`. */
export const fallbackWarning = (dir: string): string =>
  `mailroom: warning: no system keychain here (no keychain in this test): the key is saved in ${dir}/config.json, readable only by you (secure-storage required refuses instead)\n`;
