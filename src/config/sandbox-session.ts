import type { Context } from '../context.js';

/** The in-process sandbox started by the global `--sandbox` flag for the current command. */
export interface SandboxSession {
  baseUrl: string;
  apiKey: string;
  workspaceId: string;
}

let active: (SandboxSession & { close(): Promise<void> }) | undefined;

export function setSandboxSession(session: SandboxSession | undefined): void {
  active = session ? { ...session, close: async () => undefined } : undefined;
}

export function sandboxSession(): SandboxSession | undefined {
  return active;
}

/**
 * Starts a throw-away sandbox on a free loopback port for this one command (the README's quick
 * start needs no account). The sandbox code loads only when the flag is given.
 */
export async function openSandboxSession(ctx: Context, announce: boolean): Promise<void> {
  if (active) return;
  const { startSandbox } = await import('../sandbox/index.js');
  const sandbox = await startSandbox({ port: 0, quiet: true });
  active = sandbox;
  if (announce) ctx.io.err.write(`mailroom: using a throw-away local sandbox at ${sandbox.baseUrl}; nothing is really sent\n`);
}

export async function closeSandboxSession(): Promise<void> {
  const session = active;
  active = undefined;
  await session?.close();
}
