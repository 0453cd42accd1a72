import { homedir } from 'node:os';
import { join } from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Where the store lives: `MAILROOM_CONFIG_DIR` (tests, portable installs), else the platform's user
 * config directory, as gh and the AWS CLI do. Computed here, not by conf, so the fast read path
 * (file.ts) and conf (store.ts) can never disagree.
 */
export function configDir(env: Env, platform: NodeJS.Platform = process.platform): string {
  if (env.MAILROOM_CONFIG_DIR) return env.MAILROOM_CONFIG_DIR;
  if (platform === 'win32') return join(env.APPDATA || join(homedir(), 'AppData', 'Roaming'), 'mailroom');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Preferences', 'mailroom');
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'mailroom');
}

export const CONFIG_NAME = 'config';

export function configFile(env: Env): string {
  return join(configDir(env), `${CONFIG_NAME}.json`);
}

/**
 * Where mailroom keeps state worth keeping (batch journals, the running sandbox's address):
 * `MAILROOM_STATE_DIR`, else the XDG state directory (`~/.local/state/mailroom`).
 */
export function stateDir(env: Env): string {
  if (env.MAILROOM_STATE_DIR) return env.MAILROOM_STATE_DIR;
  const base = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  return join(base, 'mailroom');
}
