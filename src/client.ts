import type { Dispatcher } from 'undici';
import type { Context } from './context.js';
import { authHint, requireApiKey, requireNamedProfile, resolveSettings, type Globals, type Settings } from './config/settings.js';
import { createDispatcher } from './transport/agent.js';
import { createHttpTransport } from './transport/http.js';
import type { Transport } from './transport/index.js';
import { VERSION } from './version.js';

export interface TransportOverrides {
  /** Tests pass a MockAgent; otherwise one keep-alive Agent (or proxy agent) per transport. */
  dispatcher?: Dispatcher;
}

/**
 * The one authenticated transport a command uses. Commands import this module lazily, so undici
 * loads only when a command really talks to the API; everything it needs is imported statically
 * here so that it arrives in one chunk (every extra ES module file costs start-up time).
 */
export async function createTransport(ctx: Context, settings: Settings, overrides: TransportOverrides = {}): Promise<Transport> {
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
    ...(settings.verbose ? { log: (line: string) => void ctx.io.err.write(`${line}\n`) } : {}),
  });
}

/** Settings and a ready transport in one call, the usual first line of an API command's action. */
export async function connect(ctx: Context, globals: Globals, overrides: TransportOverrides = {}): Promise<{ settings: Settings; transport: Transport }> {
  const settings = resolveSettings(ctx, globals);
  requireNamedProfile(settings);
  const transport = await createTransport(ctx, settings, overrides);
  return { settings, transport };
}


/**
 * What an API command's action uses (gh's Factory, but lazy): the globals, the settings resolved
 * once, and the one transport, created on first use. run() (src/run.ts) closes the transport after
 * the action, whatever happened, so a command never opens or closes one itself.
 */
export interface Services {
  globals: Globals;
  settings(): Settings;
  api(): Promise<Transport>;
}

export function services(ctx: Context, globals: Globals, overrides: TransportOverrides = {}): Services {
  let settings: Settings | undefined;
  let transport: Promise<Transport> | undefined;
  const self: Services = {
    globals,
    settings: () => (settings ??= resolveSettings(ctx, globals)),
    api: () => {
      if (!transport) {
        transport = createTransport(ctx, self.settings(), overrides);
        const created = transport;
        const close = async () => (await created).close();
        if (ctx.cleanups) ctx.cleanups.push(close);
      }
      return transport;
    },
  };
  return self;
}
