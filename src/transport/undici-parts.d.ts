// Types for the undici internals imported directly (see agent.ts: the package entry costs ~3x more
// start-up time than the dispatcher and request API we use).
declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  function request(this: Dispatcher, opts: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  export = request;
}

declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export = Agent;
}


declare module 'undici/lib/core/util.js' {
  /** Raw header name/value pairs, as a dispatch handler's onHeaders gets them, to an object (lower-cased names, repeats as arrays). */
  export function parseHeaders(headers: Array<Buffer | string>): Record<string, string | string[]>;
}
