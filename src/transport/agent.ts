import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';
import Agent from 'undici/lib/dispatcher/agent.js';
import { isLoopback } from '../config/url.js';
import { setV8Flag } from '../v8-flags.js';

/**
 * The process's one keep-alive dispatcher. Imported from undici's internal files rather than the
 * package entry: the entry pulls in fetch, websockets, caches and mocks (~42 ms), the Agent alone
 * ~14 ms, which is most of `mailroom check`'s start-up budget. (Only the proxy path takes the entry.)
 */
export async function createDispatcher(baseUrl: string, env: Readonly<Record<string, string | undefined>>): Promise<Dispatcher> {
  baselineWasmOnly();
  const proxy = proxySettings(env);
  // A local sandbox must never be sent through a corporate proxy, whatever NO_PROXY says.
  if (proxy && !isLoopback(new URL(baseUrl).hostname)) {
    // The whole package here: its entry installs the dispatcher API (connect) that tunnelling needs.
    // Bundled, undici (CommonJS) arrives as the default export only: no named EnvHttpProxyAgent.
    const undici = (await import('undici')) as typeof Undici & { default?: typeof Undici };
    const { EnvHttpProxyAgent } = undici.default ?? undici;
    return new EnvHttpProxyAgent({ ...proxy, keepAliveTimeout: 10_000 });
  }
  return new Agent({ keepAliveTimeout: 10_000 });
}

interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

/** Reads the conventional proxy variables (either case) from the command's env, not process.env. */
export function proxySettings(env: Readonly<Record<string, string | undefined>>): ProxySettings | undefined {
  const pick = (name: string) => env[name] || env[name.toLowerCase()] || undefined;
  const httpProxy = pick('HTTP_PROXY');
  const httpsProxy = pick('HTTPS_PROXY') ?? httpProxy;
  if (!httpProxy && !httpsProxy) return undefined;
  const out: ProxySettings = {};
  if (httpProxy) out.httpProxy = httpProxy;
  if (httpsProxy) out.httpsProxy = httpsProxy;
  const noProxy = pick('NO_PROXY');
  if (noProxy) out.noProxy = noProxy;
  return out;
}


let wasmFlagsSet = false;

/**
 * undici parses HTTP with llhttp compiled to WebAssembly. V8 tiers that module up with TurboFan in
 * the background, and a process exiting right after one request (`mailroom check`) waits ~100 ms
 * for that compile to finish. The baseline (Liftoff) code is plenty for parsing API answers. Must
 * run before the first connection (undici compiles llhttp then), and best after undici's modules
 * have loaded: a flag change makes V8 reject Node's code cache for built-ins required later.
 */
function baselineWasmOnly(): void {
  if (wasmFlagsSet) return;
  wasmFlagsSet = true;
  setV8Flag('--liftoff-only', ['--no-liftoff-only', '--wasm-tier-up', '--wasm-dynamic-tiering']);
}
