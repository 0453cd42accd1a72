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
 * The one authenticated transport for `settings`. Only the command context (src/client.ts) calls
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
