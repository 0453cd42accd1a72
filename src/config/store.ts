import { chmodSync, mkdirSync } from 'node:fs';
import { CONFIG_NAME, configDir } from './paths.js';
import { sanitize, type StoredConfig, type StoredProfile } from './file.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface ConfigStore {
  readonly path: string;
  read(): StoredConfig;
  /** Merges `patch` into the profile, creating it; `undefined` values remove a field. */
  updateProfile(name: string, patch: Partial<Record<keyof StoredProfile, string | undefined>>): void;
  deleteProfile(name: string): boolean;
}

export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * The writable store: conf (atomic writes) in a directory only the user can enter, the file mode
 * 0600, because it holds API keys. conf is imported here only, and only by commands that write.
 */
export async function openStore(env: Env): Promise<ConfigStore> {
  const { default: Conf } = await import('conf');
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const conf = new Conf<{ profiles: Record<string, StoredProfile> }>({
    projectName: 'mailroom',
    cwd: dir,
    configName: CONFIG_NAME,
    configFileMode: 0o600,
    accessPropertiesByDotNotation: false,
    defaults: { profiles: {} },
  });
  const write = (profiles: Record<string, StoredProfile>) => {
    conf.set('profiles', profiles);
    // conf applies the mode on creation through the umask; make sure an older file is tightened too.
    chmodSync(conf.path, 0o600);
  };
  return {
    path: conf.path,
    read: () => sanitize(conf.store),
    updateProfile(name, patch) {
      const profiles = sanitize(conf.store).profiles;
      const next: StoredProfile = { ...profiles[name] };
      for (const [k, v] of Object.entries(patch) as [keyof StoredProfile, string | undefined][]) {
        if (v === undefined) delete next[k];
        else next[k] = v;
      }
      write({ ...profiles, [name]: next });
    },
    deleteProfile(name) {
      const profiles = sanitize(conf.store).profiles;
      if (!(name in profiles)) return false;
      delete profiles[name];
      write(profiles);
      return true;
    },
  };
}
