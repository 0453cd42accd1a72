import { createRequire } from 'node:module';
import type { Keychain, KeychainRef } from '../context.js';
import { MailroomError } from '../errors.js';

export type { Keychain, KeychainRef };

/** No credential store can be used here; the message says why, in one line. */
export class KeychainUnavailable extends Error {
  override name = 'KeychainUnavailable';
}

interface Binding {
  Entry: new (service: string, account: string, options?: { linux?: { store?: 'secret-service' | 'keyutils' } }) => {
    getPassword(): string | null;
    setPassword(password: string): void;
    deletePassword(): boolean;
  };
}

let binding: Binding | undefined;

/**
 * @napi-rs/keyring is a native module: it ships beside dist/ (a dependency), not inside it, and is
 * required here on the first key read or stored, never at start-up. Synchronously, because
 * settings are resolved synchronously (settings.ts) and its Entry calls are synchronous anyway.
 */
function load(): Binding {
  if (binding) return binding;
  try {
    binding = createRequire(import.meta.url)('@napi-rs/keyring') as Binding;
  } catch (err) {
    throw new KeychainUnavailable(`the keychain module @napi-rs/keyring could not be loaded (${firstLine(err)})`);
  }
  return binding;
}

const firstLine = (err: unknown): string => String(err instanceof Error ? err.message : err).split('\n')[0]?.trim() || 'unknown error';

/**
 * Every call fails the same way when the store cannot be reached: one line saying why. On Linux
 * the Secret Service is required: the binding's own fallback, the kernel keyring, forgets
 * everything at reboot, so a key stored there would be lost where the user expects it kept.
 */
function withEntry<T>(ref: KeychainRef, work: (entry: InstanceType<Binding['Entry']>) => T): T {
  const { Entry } = load();
  try {
    return work(new Entry(ref.service, ref.account, { linux: { store: 'secret-service' } }));
  } catch (err) {
    throw new KeychainUnavailable(firstLine(err).replace(/^Platform failure: /, ''));
  }
}

/** The real store, through @napi-rs/keyring (loaded on first use). */
export const systemKeychain: Keychain = {
  get: (ref) => withEntry(ref, (e) => e.getPassword() ?? undefined),
  set: (ref, secret) => withEntry(ref, (e) => e.setPassword(secret)),
  delete: (ref) => withEntry(ref, (e) => e.deletePassword()),
};

/** The service name entries are stored under ("mailroom-cli" in Seahorse, Keychain Access, ...). */
export const KEYCHAIN_SERVICE = 'mailroom-cli';

/**
 * The entry of a profile: the profile and the config directory it belongs to, so that two config
 * stores (MAILROOM_CONFIG_DIR) never share one entry.
 */
export function keychainRef(profile: string, configDir: string): KeychainRef {
  return { service: KEYCHAIN_SERVICE, account: `${profile}:${configDir}` };
}

/** What reaches the keychain: the real one, unless a test hands in its own (Context.keychain). */
export interface KeychainContext {
  keychain?: Keychain | undefined;
}

export const keychainOf = (ctx: KeychainContext): Keychain => ctx.keychain ?? systemKeychain;

export const LINUX_HINT = 'on Linux the keychain is a Secret Service (gnome-keyring, KWallet, KeePassXC) on the session D-Bus';

/**
 * The key a profile keeps in the keychain. Throws an `authentication` error saying why it cannot be
 * had: no keychain reachable here, or the entry is gone (removed by hand, another machine's file).
 */
export function readKey(ctx: KeychainContext, profile: string, ref: KeychainRef): string {
  let key: string | undefined;
  try {
    key = keychainOf(ctx).get(ref);
  } catch (err) {
    if (!(err instanceof KeychainUnavailable)) throw err;
    throw new MailroomError('authentication', `the key of profile ${profile} is in the system keychain, which cannot be reached here (${err.message})`, {
      hints: [`unlock the keychain, or pass a key with MAILROOM_API_KEY or --api-key-file; ${LINUX_HINT}`],
    });
  }
  if (key === undefined || key === '') {
    throw new MailroomError('authentication', `the key of profile ${profile} is no longer in the system keychain (${ref.service}, ${ref.account})`, {
      hints: [`store it again: mailroom login${profile === 'default' ? '' : ` --profile ${profile}`}`],
    });
  }
  return key;
}
