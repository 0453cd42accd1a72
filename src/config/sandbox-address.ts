import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirectory } from '../files.js';
import { stateDir } from './paths.js';

type Env = Readonly<Record<string, string | undefined>>;

/** What `mailroom sandbox` on a fixed port leaves in the state directory: how to reach it. */
export interface SandboxAddress {
  port: number;
  baseUrl: string;
  apiKey: string;
  workspaceId: string;
  pid: number;
  startedAt: string;
}

/** `<state dir>/sandboxes`: one `<port>.json` per port a sandbox was last run on (0700, files 0600: they hold its key). */
export const sandboxAddressDir = (env: Env): string => join(stateDir(env), 'sandboxes');

function parse(text: string): SandboxAddress | undefined {
  try {
    const a = JSON.parse(text) as Partial<SandboxAddress>;
    const ok =
      Number.isInteger(a.port) &&
      typeof a.baseUrl === 'string' &&
      typeof a.apiKey === 'string' &&
      /^\S{8,256}$/.test(a.apiKey) &&
      typeof a.workspaceId === 'string' &&
      /^wrk_[A-Za-z0-9]{1,64}$/.test(a.workspaceId) &&
      Number.isInteger(a.pid);
    return ok ? (a as SandboxAddress) : undefined;
  } catch {
    return undefined;
  }
}

/** The address recorded for `port`, if any (a sandbox restarted there takes its key and workspace again). */
export function recordedSandbox(env: Env, port: number): SandboxAddress | undefined {
  try {
    return parse(readFileSync(join(sandboxAddressDir(env), `${port}.json`), 'utf8'));
  } catch {
    return undefined;
  }
}

/** Every recorded address, newest first: `sandbox env` tries which of them answer. */
export function recordedSandboxes(env: Env): SandboxAddress[] {
  let names: string[];
  try {
    names = readdirSync(sandboxAddressDir(env)).filter((n) => /^\d+\.json$/.test(n));
  } catch {
    return [];
  }
  const found: SandboxAddress[] = [];
  for (const name of names) {
    const address = recordedSandbox(env, Number(name.slice(0, -5)));
    if (address) found.push(address);
  }
  return found.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
}

/** Records where a sandbox listens (written whole: a reader never sees half a file). */
export function recordSandbox(env: Env, address: SandboxAddress): void {
  const dir = sandboxAddressDir(env);
  makeDirectory(dir, 0o700);
  const file = join(dir, `${address.port}.json`);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(address)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}
