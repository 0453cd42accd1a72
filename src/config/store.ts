import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { JournalLock } from '../output/lock.js';
import { isMailroomError } from '../errors.js';
import { CONFIG_NAME, configDir } from './paths.js';
import { readStoredConfig, sanitize, storedProfile, storeError, type StoredConfig, type StoredProfile } from './file.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface ConfigStore {
  readonly path: string;
  read(): StoredConfig;
  /** Fails (naming the file and the cause) now if a write would: before a login spends a request. */
  checkWritable(): void;
  /** Merges `patch` into the profile, creating it; `undefined` values remove a field. */
  updateProfile(name: string, patch: { [K in keyof StoredProfile]?: StoredProfile[K] | undefined }): void;
  deleteProfile(name: string): boolean;
}

export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Another mailroom writing the store holds its lock for milliseconds; a longer hold is refused. */
const LOCK_WAIT_MS = 10_000;

/**
 * The writable store: conf (atomic writes: temp file and rename) in a directory only the user can
 * enter, the file mode 0600, because it holds API keys. Each read-modify-write holds
 * `config.json.lock` (output/lock.ts, waiting for another mailroom's write), so ten `config set`s at
 * once keep all ten changes. Any failure is one line naming the file and the cause (file.ts).
 * conf is imported here only, and only by commands that write.
 */
export async function openStore(env: Env): Promise<ConfigStore> {
  const { default: Conf } = await import('conf');
  const dir = configDir(env);
  const path = join(dir, `${CONFIG_NAME}.json`);
  const failing = (err: unknown) => (isMailroomError(err) && !(err.cause instanceof Error && 'code' in err.cause) ? err : storeError(path, isMailroomError(err) ? err.cause : err, 'write'));
  const locked = <T>(work: () => T): T => {
    let lock: JournalLock | undefined;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      lock = JournalLock.acquire(path, { subject: `config file ${path}`, holder: 'another mailroom command', createDir: false, waitMs: LOCK_WAIT_MS });
      return work();
    } catch (err) {
      throw failing(err);
    } finally {
      lock?.release();
    }
  };
  const conf = () =>
    new Conf<{ profiles: Record<string, StoredProfile> }>({
      projectName: 'mailroom',
      cwd: dir,
      configName: CONFIG_NAME,
      configFileMode: 0o600,
      accessPropertiesByDotNotation: false,
      defaults: { profiles: {} },
    });
  const change = (edit: (profiles: Record<string, StoredProfile>) => boolean): boolean =>
    locked(() => {
      const store = conf();
      const profiles = sanitize(store.store).profiles;
      if (!edit(profiles)) return false;
      store.set('profiles', profiles);
      // conf applies the mode on creation through the umask; make sure an older file is tightened too.
      chmodSync(path, 0o600);
      return true;
    });
  return {
    path,
    read: () => readStoredConfig(path),
    checkWritable: () => locked(() => undefined),
    updateProfile(name, patch) {
      change((profiles) => {
        const next: Record<string, unknown> = { ...storedProfile({ profiles }, name) };
        for (const [k, v] of Object.entries(patch)) {
          if (v === undefined) delete next[k];
          else next[k] = v;
        }
        profiles[name] = next as StoredProfile;
        return true;
      });
    },
    deleteProfile(name) {
      return change((profiles) => {
        if (!Object.hasOwn(profiles, name)) return false;
        delete profiles[name];
        return true;
      });
    },
  };
}
