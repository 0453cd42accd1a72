import { ValidationError } from '../errors.js';
import { storedProfile, type SecureStorage, type StoredProfile } from './file.js';
import { keychainOf, keychainRef, KeychainUnavailable, LINUX_HINT, type KeychainContext, type KeychainRef } from './keychain.js';
import { configDir } from './paths.js';
import type { ConfigStore } from './store.js';
import { noticeLine } from '../output/notice.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface KeyContext extends KeychainContext {
  env: Env;
}

/** The secure-storage mode in effect and where it came from (`--secure-storage`, `MAILROOM_SECURE_STORAGE`, `profile ci`, `default`). */
export interface StorageMode {
  value: SecureStorage;
  origin: string;
}

export interface SavedKey {
  where: 'keychain' | 'file';
}


/**
 * Saves a key in a profile, with the other fields of `patch` in the same write of the file: in the
 * system keychain (the file then holds only where it is), or in the file (mode 0600) when the mode
 * is `off`, or `auto` and no keychain can be used here (with one warning). `required` and no
 * keychain: refused, nothing saved. The keychain entry is read back before the file points to it.
 */
/**
 * `required` and no keychain here: refused now, before a key is asked for or a request spent; the
 * same refusal saveKey would make.
 */
export function checkKeychain(ctx: KeyContext, store: ConfigStore, profile: string, mode: StorageMode): void {
  if (mode.value !== 'required') return;
  const ref = storedProfile(store.read(), profile)?.keychain ?? keychainRef(profile, configDir(ctx.env));
  try {
    keychainOf(ctx).get(ref);
  } catch (err) {
    if (!(err instanceof KeychainUnavailable)) throw err;
    throw refusal(err, mode, store);
  }
}

function refusal(err: KeychainUnavailable, mode: StorageMode, store: ConfigStore): ValidationError {
  return new ValidationError(`no system keychain to keep the key in (${err.message}), and secure-storage is "required" (${mode.origin}): nothing was saved`, {
    hints: [LINUX_HINT, `to keep it in ${store.path} (mode 0600) instead: --secure-storage auto`],
  });
}

export function saveKey(ctx: KeyContext, store: ConfigStore, profile: string, key: string, mode: StorageMode, patch: Partial<StoredProfile>, warn: (line: string) => void): SavedKey {
  const existing = storedProfile(store.read(), profile);
  if (mode.value !== 'off') {
    const ref = existing?.keychain ?? keychainRef(profile, configDir(ctx.env));
    try {
      const keychain = keychainOf(ctx);
      keychain.set(ref, key);
      if (keychain.get(ref) !== key) throw new KeychainUnavailable('the key stored could not be read back');
      store.updateProfile(profile, { ...patch, apiKey: undefined, keychain: ref });
      return { where: 'keychain' };
    } catch (err) {
      if (!(err instanceof KeychainUnavailable)) throw err;
      if (mode.value === 'required') throw refusal(err, mode, store);
      warn(noticeLine('warning', `no system keychain here (${err.message}): the key is saved in ${store.path}, readable only by you (secure-storage required refuses instead)`));
    }
  }
  store.updateProfile(profile, { ...patch, apiKey: key, keychain: undefined });
  // The file holds the key now: an older copy in the keychain would only go stale.
  if (existing?.keychain) forget(ctx, existing.keychain);
  return { where: 'file' };
}

/** Removes a keychain entry when it can; one that cannot be reached stays (it is no leak: it is in the keychain). */
function forget(ctx: KeyContext, ref: KeychainRef): boolean {
  try {
    return keychainOf(ctx).delete(ref);
  } catch (err) {
    if (err instanceof KeychainUnavailable) return false;
    throw err;
  }
}

/** Where a profile's key is: `keychain`, `file`, or `none`. */
export function keyLocation(profile: StoredProfile | undefined): 'keychain' | 'file' | 'none' {
  return profile?.keychain ? 'keychain' : profile?.apiKey !== undefined ? 'file' : 'none';
}

/**
 * Removes a profile's key from wherever it is: the keychain entry and the file's field. A keychain
 * that cannot be reached leaves its entry (returned as `left`) but the profile forgets it.
 */
export function removeKey(ctx: KeyContext, store: ConfigStore, profile: string): { removed: boolean; left?: string } {
  const stored = storedProfile(store.read(), profile);
  if (!stored) return { removed: false };
  let left: string | undefined;
  if (stored.keychain) {
    try {
      keychainOf(ctx).delete(stored.keychain);
    } catch (err) {
      if (!(err instanceof KeychainUnavailable)) throw err;
      left = err.message;
    }
  }
  const removed = stored.apiKey !== undefined || stored.keychain !== undefined;
  const rest = Object.keys(stored).filter((k) => k !== 'apiKey' && k !== 'keychain');
  if (rest.length === 0) store.deleteProfile(profile);
  else store.updateProfile(profile, { apiKey: undefined, keychain: undefined });
  return left === undefined ? { removed } : { removed, left };
}

/**
 * Moves every key kept in the file into the keychain (`login --migrate`), each read back before the
 * file forgets it. Needs a keychain: without one, nothing moves.
 */
export function migrateKeys(ctx: KeyContext, store: ConfigStore): string[] {
  const moved: string[] = [];
  for (const [profile, stored] of Object.entries(store.read().profiles)) {
    if (stored.apiKey === undefined) continue;
    const ref = stored.keychain ?? keychainRef(profile, configDir(ctx.env));
    try {
      const keychain = keychainOf(ctx);
      keychain.set(ref, stored.apiKey);
      if (keychain.get(ref) !== stored.apiKey) throw new KeychainUnavailable('the key stored could not be read back');
    } catch (err) {
      if (!(err instanceof KeychainUnavailable)) throw err;
      const done = moved.length > 0 ? ` (moved before it: ${moved.join(', ')})` : '';
      throw new ValidationError(`no system keychain to move the keys into (${err.message}): profile ${profile}'s key stays in ${store.path}${done}`, { hints: [LINUX_HINT] });
    }
    store.updateProfile(profile, { apiKey: undefined, keychain: ref });
    moved.push(profile);
  }
  return moved;
}
