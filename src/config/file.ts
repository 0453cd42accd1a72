import { readFileSync } from 'node:fs';
import { CliError } from '../errors.js';

/** One stored profile. Every field optional: a profile may hold only a workspace, say. */
export interface StoredProfile {
  apiKey?: string;
  baseUrl?: string;
  workspace?: string;
}

export interface StoredConfig {
  profiles: Record<string, StoredProfile>;
}

/**
 * Reads the store without loading conf (~18 ms bundled): resolving settings happens on every
 * command, writing only in login/logout/config. A missing file is an empty store.
 */
export function readStoredConfig(path: string): StoredConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { profiles: {} };
  }
  try {
    return sanitize(JSON.parse(text));
  } catch {
    throw new CliError('usage', `config file ${path} is not valid JSON`, { hints: ['fix it by hand, or delete it and run `mailroom login` again'] });
  }
}

export function sanitize(data: unknown): StoredConfig {
  const profiles: Record<string, StoredProfile> = {};
  const raw = data && typeof data === 'object' ? (data as { profiles?: unknown }).profiles : undefined;
  if (raw && typeof raw === 'object') {
    for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
      if (!value || typeof value !== 'object') continue;
      const v = value as Record<string, unknown>;
      const p: StoredProfile = {};
      if (typeof v.apiKey === 'string') p.apiKey = v.apiKey;
      if (typeof v.baseUrl === 'string') p.baseUrl = v.baseUrl;
      if (typeof v.workspace === 'string') p.workspace = v.workspace;
      profiles[name] = p;
    }
  }
  return { profiles };
}
