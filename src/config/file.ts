import { chmodSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { MailroomError, ValidationError } from '../errors.js';
import { fsReason } from '../files.js';
import type { KeychainRef } from './keychain.js';
import { noticeLine } from '../output/notice.js';

/** One stored profile. Every field optional: a profile may hold only a workspace, say. */
export interface StoredProfile {
  /** A key kept in the file itself (no keychain here, `secure-storage off`, or stored before keychains were used). */
  apiKey?: string;
  /** Where the key is in the system keychain, instead of `apiKey` (credentials.ts). */
  keychain?: KeychainRef;
  /** Where keys saved to this profile go (`config set secure-storage`): see SECURE_STORAGE. */
  secureStorage?: SecureStorage;
  baseUrl?: string;
  workspace?: string;
  /** Per-request timeout in ms (`config set timeout`), as --timeout. */
  timeout?: number;
  /** As --max-retries. */
  maxRetries?: number;
}

/**
 * `auto`: the system keychain when there is one, else the file (0600) with a warning; `required`: the
 * keychain or nothing (fail closed); `off`: the file.
 */
export const SECURE_STORAGE = ['auto', 'required', 'off'] as const;
export type SecureStorage = (typeof SECURE_STORAGE)[number];

/** The ranges of --timeout and --max-retries, which the stored values share. */
export const TIMEOUT_RANGE = [1, Number.MAX_SAFE_INTEGER] as const;
export const MAX_RETRIES_RANGE = [0, 20] as const;

const inRange = (v: unknown, [min, max]: readonly [number, number]): v is number => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

export interface StoredConfig {
  /** Null-prototype: a profile named `constructor` or `__proto__` is an entry like any other (see storedProfile). */
  profiles: Record<string, StoredProfile>;
  /** Why the keys in this store must not be used (a directory others can write to), if so. */
  keysRefused?: string;
}

/**
 * Reads the store without loading conf (~18 ms bundled): resolving settings happens on every
 * command, writing only in login/logout/config. A missing file is an empty store; one that cannot
 * be read is an error naming it and why, never "no API key".
 *
 * Keys are kept private here too: a file others can read is tightened to 0600 (with `warn`), and
 * keys in a directory others can write to (who could have swapped the file) are refused.
 */
export function readStoredConfig(path: string, warn?: (line: string) => void): StoredConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return sanitize(undefined);
    throw storeError(path, err, 'read');
  }
  let config: StoredConfig;
  try {
    config = sanitize(JSON.parse(text));
  } catch {
    throw new ValidationError(`config file ${path} is not valid JSON`, { hints: ['fix it by hand, or delete it and run `mailroom login` again'] });
  }
  if (process.platform !== 'win32' && Object.values(config.profiles).some((p) => p.apiKey)) keepPrivate(path, config, warn);
  return config;
}

function keepPrivate(path: string, config: StoredConfig, warn: ((line: string) => void) | undefined): void {
  const dir = dirname(path);
  if (statSync(dir).mode & 0o002) config.keysRefused = `its directory ${dir} is writable by other users`;
  if ((statSync(path).mode & 0o077) === 0) return;
  try {
    chmodSync(path, 0o600);
    warn?.(noticeLine('warning', `${path} holds an API key and was readable by other users; its mode is now 0600`));
  } catch (err) {
    warn?.(noticeLine('warning', `${path} holds an API key and is readable by other users (could not change it: ${fsReason(err, 'write')}): chmod 600 ${path}`));
  }
}

/** Causes of a failed write that are the disk's, not the setup's: exit 9, like a batch's journal. */
const DISK_FULL_OR_BROKEN = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EROFS']);

/**
 * One line for a store that cannot be read or written, naming the file (or the directory at fault)
 * and the cause: exit 2 for a setup the user must fix (permissions, a directory in the way), exit 9
 * when the disk is full, read-only or failing.
 */
export function storeError(path: string, err: unknown, doing: 'read' | 'write'): MailroomError {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  const dir = dirname(path);
  const message =
    code === 'EISDIR'
      ? `config file ${path} is a directory`
      : code === 'ENOTDIR' || code === 'EEXIST'
        ? `config directory ${dir} is not a directory`
        : `cannot ${doing} the config file ${path}: ${fsReason(err, doing)}`;
  return doing === 'write' && DISK_FULL_OR_BROKEN.has(code) ? new MailroomError('storage', message, { cause: err }) : new ValidationError(message, { cause: err });
}

/**
 * The stored profile of that name, an own entry only: `--profile constructor` or `toString` must not
 * find what every object inherits.
 */
export function storedProfile(config: StoredConfig, name: string): StoredProfile | undefined {
  return Object.hasOwn(config.profiles, name) ? config.profiles[name] : undefined;
}

export function sanitize(data: unknown): StoredConfig {
  // No prototype: a hand-written "__proto__" profile stays an entry instead of becoming one.
  const profiles: Record<string, StoredProfile> = Object.create(null) as Record<string, StoredProfile>;
  const raw = data && typeof data === 'object' ? (data as { profiles?: unknown }).profiles : undefined;
  if (raw && typeof raw === 'object') {
    for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
      if (!value || typeof value !== 'object') continue;
      const v = value as Record<string, unknown>;
      const p: StoredProfile = {};
      if (typeof v.apiKey === 'string') p.apiKey = v.apiKey;
      const ref = v.keychain as Record<string, unknown> | null | undefined;
      if (ref && typeof ref === 'object' && typeof ref.service === 'string' && typeof ref.account === 'string') p.keychain = { service: ref.service, account: ref.account };
      if ((SECURE_STORAGE as readonly unknown[]).includes(v.secureStorage)) p.secureStorage = v.secureStorage as SecureStorage;
      if (typeof v.baseUrl === 'string') p.baseUrl = v.baseUrl;
      if (typeof v.workspace === 'string') p.workspace = v.workspace;
      // A value out of range (a hand edit) is left out, as a wrong type is: the default applies.
      if (inRange(v.timeout, TIMEOUT_RANGE)) p.timeout = v.timeout;
      if (inRange(v.maxRetries, MAX_RETRIES_RANGE)) p.maxRetries = v.maxRetries;
      profiles[name] = p;
    }
  }
  return { profiles };
}
