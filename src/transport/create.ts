import type { Dispatcher } from 'undici';
import type { Context } from '../context.js';
import { authHint, requireApiKey, type Settings } from '../config/settings.js';
import { createDispatcher } from './agent.js';
import { createHttpTransport } from './http.js';
import type { Transport } from './index.js';
import { VERSION } from '../version.js';

export interface TransportOverrides {
  /** Tests pass a MockAgent; otherwise one keep-alive Agent (or proxy agent) per transport. */
  dispatcher?: Dispatcher;
}

/**
 * The one authenticated transport for `settings`. Only the command context (src/commands/context.ts) calls
 * it, lazily, so undici loads only when a command really talks to the API; everything it needs is
 * imported statically here so that it arrives in one chunk (every extra ES module file costs
 * start-up time).
 */
export async function createTransport(ctx: Pick<Context, 'env' | 'io'>, settings: Settings, overrides: TransportOverrides = {}): Promise<Transport> {
  const apiKey = requireApiKey(settings);
  const dispatcher = overrides.dispatcher ?? (await createDispatcher(settings.baseUrl.value, ctx.env));
  return createHttpTransport({
    baseUrl: settings.baseUrl.value,
    apiKey,
    dispatcher,
    ownsDispatcher: overrides.dispatcher === undefined,
    userAgent: `mailroom/${VERSION}`,
    timeoutMs: settings.timeoutMs.value,
    maxRetries: settings.maxRetries.value,
    authHint: authHint(settings),
    // Pacing to the API's rate limit is on unless switched off (docs/batch.md, "Rate limits: pacing").
    pacing: ctx.env.MAILROOM_PACING !== 'off',
    ...(settings.verbose ? { log: (line: string) => void ctx.io.err.write(`${line}\n`) } : {}),
  });
}

/**
 * The transport to a sandbox's own endpoints at `root` (its inspection and control, which take no
 * key): the same HTTP path as the API's, without a key, retries or pacing; 10 s unless --timeout
 * or the profile says otherwise.
 */
export async function createSandboxTransport(ctx: Pick<Context, 'env' | 'io'>, settings: Settings, root: string, overrides: TransportOverrides = {}): Promise<Transport> {
  const dispatcher = overrides.dispatcher ?? (await createDispatcher(root, ctx.env));
  return createHttpTransport({
    baseUrl: root,
    dispatcher,
    ownsDispatcher: overrides.dispatcher === undefined,
    userAgent: `mailroom/${VERSION}`,
    timeoutMs: settings.timeoutMs.source === 'default' ? 10_000 : settings.timeoutMs.value,
    maxRetries: 0,
    pacing: false,
    ...(settings.verbose ? { log: (line: string) => void ctx.io.err.write(`${line}\n`) } : {}),
  });
}
