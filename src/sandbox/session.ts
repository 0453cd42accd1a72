import type { Context, SandboxSession } from '../context.js';
import { startSandbox } from './index.js';

/**
 * Starts a throw-away sandbox on a free loopback port for one command (`--sandbox`: the README's
 * quick start needs no account). program.ts loads this module only when the flag is given, puts the
 * session in the context (settings read it as an override) and closes it after the action.
 */
export async function openSandboxSession(ctx: Context, announce: boolean): Promise<SandboxSession & { close(): Promise<void> }> {
  const sandbox = await startSandbox({ port: 0 });
  if (announce) ctx.io.err.write(`mailroom: using a throw-away local sandbox at ${sandbox.baseUrl}; nothing is really sent\n`);
  return sandbox;
}
